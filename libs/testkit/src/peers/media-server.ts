import { createReadStream } from "node:fs";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";

/**
 * A tiny static HTTP server on loopback for media tests: serves the files of a folder (GET/HEAD, single byte
 * ranges, content types by extension) and any hand-written routes (redirects, slow or lying servers…), and
 * records every request. A server that runs in another process (the shared stack's, in jest's main process) takes
 * routes per folder instead, from a file there (`writeFolderRoutes`).
 */

export type MediaRoute = (request: IncomingMessage, response: ServerResponse) => void;

export interface MediaServerOptions {
  /** Folder whose files are served at `/<relative path>` (and its folders' routes files: `writeFolderRoutes`). */
  root?: string;
  /** Handlers by exact path, tried before files. */
  routes?: Record<string, MediaRoute>;
}

/**
 * A route of a folder of a server's root (see `writeFolderRoutes`): an answer made of a status, headers and a text
 * body, or one of the folder's files served under another path (as a static file: content type by the file's
 * extension, length, ranges), with extra headers.
 */
export interface FolderRoute {
  /** Default 200; not used with `file`. */
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Path of a file in the folder, relative to it. */
  file?: string;
}

/** The routes file of a folder (see `writeFolderRoutes`). */
const FOLDER_ROUTES_FILE = ".routes.json";

/**
 * Sets the routes of `folder`, a folder directly under the root of a server that may run in another process (the
 * shared stack's media server): a request for `/<folder name><path>` (GET or HEAD; the path decoded) is answered by
 * `routes[path]` when there is one, before the files. Replaces the folder's routes of an earlier call, atomically:
 * a request never reads half of them. A test file's folder, and so its routes, is its own.
 */
export async function writeFolderRoutes(folder: string, routes: Record<string, FolderRoute>): Promise<void> {
  const temporary = join(folder, `${FOLDER_ROUTES_FILE}.${process.pid}.${Date.now()}.tmp`);
  await writeFile(temporary, JSON.stringify(routes));
  await rename(temporary, join(folder, FOLDER_ROUTES_FILE));
}

/** The route that the routes file of the request's folder names for it (`pathname`: `/<folder>/<path>`), if any. */
async function folderRouteOf(root: string, pathname: string): Promise<{ folder: string; route: FolderRoute } | undefined> {
  const match = /^\/([^/]+)(\/.*)$/.exec(pathname);
  if (!match || match[1] === "." || match[1] === "..") return undefined;
  const folder = join(root, match[1]);
  // eslint-disable-next-line no-restricted-syntax -- most folders have no routes file: their requests go to the files
  const text = await readFile(join(folder, FOLDER_ROUTES_FILE), "utf8").catch(() => null);
  if (text === null) return undefined;
  const routes = JSON.parse(text) as Record<string, FolderRoute>;
  return Object.hasOwn(routes, match[2]) ? { folder, route: routes[match[2]] } : undefined;
}

export interface MediaServerRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface LocalMediaServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** `url` + `path` (path starting with `/`). */
  urlOf(path: string): string;
  requests: MediaServerRequest[];
  /** Adds or replaces a route (e.g. one that needs another server's URL). */
  route(path: string, handler: MediaRoute): void;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".m4a": "audio/mp4",
  ".aac": "audio/aac",
  ".ogg": "audio/ogg",
  ".opus": "audio/ogg",
  ".flac": "audio/flac",
  ".webm": "video/webm",
  ".mp4": "video/mp4",
  ".html": "text/html; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".json": "application/json",
};

async function serveFile(root: string, pathname: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const decoded = decodeURIComponent(pathname);
  const folderRoute = await folderRouteOf(root, decoded);
  if (!folderRoute) return sendFile(root, resolve(root, `.${decoded}`), request, response);
  const { folder, route } = folderRoute;
  if (route.file !== undefined) return sendFile(folder, resolve(folder, route.file), request, response, route.headers);
  response.writeHead(route.status ?? 200, route.headers).end(request.method === "HEAD" ? undefined : (route.body ?? ""));
}

/** Answers with the file at `path` (within `root`, else 404): whole, or the single byte range asked for. */
async function sendFile(
  root: string,
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  // eslint-disable-next-line no-restricted-syntax -- a file that cannot be read is not served: the request gets the 404 below
  const info = path.startsWith(root + sep) ? await stat(path).catch(() => null) : null;
  if (!info?.isFile()) {
    response.writeHead(404, { "content-type": "text/plain" }).end("File not found");
    return;
  }
  const headers = {
    "content-type": CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream",
    "accept-ranges": "bytes",
    "last-modified": info.mtime.toUTCString(),
    ...extraHeaders,
  };
  let start = 0;
  let end = info.size - 1;
  let status = 200;
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? "");
  if (range && (range[1] || range[2])) {
    start = range[1] ? Number(range[1]) : Math.max(0, info.size - Number(range[2]));
    end = range[1] && range[2] ? Math.min(Number(range[2]), info.size - 1) : info.size - 1;
    if (start > end || start >= info.size) {
      response.writeHead(416, { "content-range": `bytes */${info.size}` }).end();
      return;
    }
    status = 206;
    Object.assign(headers, { "content-range": `bytes ${start}-${end}/${info.size}` });
  }
  response.writeHead(status, { ...headers, "content-length": end - start + 1 });
  if (request.method === "HEAD" || info.size === 0) {
    response.end();
    return;
  }
  createReadStream(path, { start, end }).pipe(response);
}

export async function startMediaServer(options: MediaServerOptions = {}): Promise<LocalMediaServer> {
  const root = options.root ? resolve(options.root) : undefined;
  const routes = new Map(Object.entries(options.routes ?? {}));
  const requests: MediaServerRequest[] = [];

  const server = createServer((request, response) => {
    const { pathname } = new URL(request.url ?? "/", "http://localhost");
    requests.push({ method: request.method ?? "GET", path: request.url ?? "/", headers: request.headers });
    const route = routes.get(pathname);
    if (route) return route(request, response);
    if (!root || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(root ? 405 : 404).end();
      return;
    }
    serveFile(root, pathname, request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolveListen) => server.listen(0, "127.0.0.1", resolveListen));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    urlOf: (path) => `${url}${path}`,
    requests,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolveClose) => {
        // Routes that never answer (timeout tests) would otherwise keep the server open.
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
