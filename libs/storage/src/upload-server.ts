import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Transform, type Readable, type TransformCallback } from "node:stream";
import busboy from "busboy";
import {
  AppError,
  drainAfterEarlyAnswer,
  HTTP_STATUS_BY_KIND,
  required,
  traceHttpRequests,
  verifyInternalRequest,
  type Logger,
} from "@study/platform";

/** Serves `GET|HEAD /files/<storage key>` (each key segment URL-encoded) to the signed-in user `userId`. */
export type FileRoute = (request: IncomingMessage, response: ServerResponse, userId: string, encodedKey: string) => Promise<void>;

/** One uploaded file, already stored. */
export interface StoredUpload {
  storageKey: string;
  fileName: string;
  size: number;
  /** As declared by the client (may be refined by `inspect`). */
  declaredMimeType: string;
  /** SHA-256 of the file's bytes (hex), computed while it streamed in: the same file uploaded again has the same. */
  sha256: string;
}

/**
 * What an upload route does with its request: `key` names the object for the file, `inspect` checks the
 * leading bytes (throws to refuse; returns the content type to store), `complete` runs once the file is
 * stored and every field is read (creating the records) and returns the JSON to answer with.
 */
export interface UploadRoute {
  /** Largest accepted file; over it: 413 FILE_TOO_LARGE with nothing stored. */
  maxBytes(fields: Record<string, string>, fileName: string, declaredMimeType: string): number;
  /** Bytes `inspect` wants to see (it gets fewer only for a shorter file). */
  inspectBytes: number;
  key(userId: string, fileName: string): string;
  inspect(firstBytes: Buffer, fileName: string, declaredMimeType: string): string;
  complete(
    userId: string,
    upload: StoredUpload & { mimeType: string },
    fields: Record<string, string>,
    params: Record<string, string>,
    /** Every value of each field, in order (a field sent more than once, e.g. `tags` repeated, has several). */
    fieldValues: Record<string, string[]>,
  ): Promise<{ status: number; body: unknown }>;
}

export interface UploadStorage {
  put(key: string, body: Readable, options: { contentType: string; signal?: AbortSignal }): Promise<{ size: number }>;
  delete(key: string): Promise<void>;
}

export interface InternalHttpServerOptions {
  port: number;
  host?: string;
  /** Shared with the gateway (INTERNAL_UPLOAD_SECRET): only signed requests are served. */
  secret: string;
  storage: UploadStorage;
  logger: Logger;
  /** `POST <pattern>`, e.g. `/uploads/notes/:noteId/attachments`. */
  uploads: Record<string, UploadRoute>;
  /** `GET|HEAD /files/<storage key>`, when the service serves its stored files back. */
  files?: FileRoute;
}

const FILES_PATH = "/files/";

export interface RunningInternalHttpServer {
  port: number;
  close(): Promise<void>;
}

function errorBody(error: AppError) {
  return { error: { kind: error.kind, code: error.code, message: error.message, details: error.details } };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** Refuses an upload at once, while its body may still be arriving (the rest is read and discarded). */
function refuse(request: IncomingMessage, response: ServerResponse, error: AppError): void {
  drainAfterEarlyAnswer(request, response);
  send(response, HTTP_STATUS_BY_KIND[error.kind], errorBody(error));
}

function match(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split("/");
  const pathParts = path.split("/");
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < patternParts.length; index++) {
    const part = patternParts[index];
    if (part.startsWith(":")) {
      try {
        params[part.slice(1)] = decodeURIComponent(pathParts[index]);
      } catch {
        return null;
      }
    } else if (part !== pathParts[index]) return null;
  }
  return params;
}

/** Passes bytes through once the first `count` were seen and accepted by `check` (which may throw). */
class LeadingBytesCheck extends Transform {
  private head: Buffer[] = [];
  private headLength = 0;
  private checked = false;

  constructor(
    private readonly count: number,
    private readonly check: (firstBytes: Buffer) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.checked) return callback(null, chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < this.count) return callback();
    this.release(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.checked) return callback();
    this.release(callback);
  }

  private release(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.checked = true;
    try {
      this.check(head.subarray(0, this.count));
    } catch (error) {
      return callback(error as Error);
    }
    callback(null, head);
  }
}

const fileTooLarge = (maxBytes: number) =>
  new AppError("too_large", "FILE_TOO_LARGE", `File is too large: at most ${+(maxBytes / (1024 * 1024)).toFixed(1)} MB`);
const uploadInterrupted = () => new AppError("validation", "UPLOAD_INTERRUPTED", "The upload was interrupted");
const invalidMultipartBody = () =>
  AppError.validation("Invalid multipart body", [{ field: "file", message: "the multipart body could not be read" }]);
// The storage's own error (disk full, S3 failing) may name paths or buckets: the client gets a generic message.
const storageFailed = () => new AppError("unavailable", "SERVICE_UNAVAILABLE", "The file could not be stored; please try again later");

/**
 * A service's internal HTTP endpoint (plain HTTP on e.g. MEDIA_HTTP_PORT, reached only through the gateway, which
 * signs the user id of every request): streamed uploads and, optionally, downloads of stored files. Media and
 * documents serve one each.
 *
 * Uploads: parses multipart with busboy and streams the `file` part into storage — never holding it whole in
 * memory — while checking its leading bytes; other parts are short fields. The file goes to storage under a
 * fresh key; the records are created only after the whole request arrived. A refused, oversized, malformed
 * (400 "Invalid multipart body") or interrupted upload, and one whose storage failed (503), removes what was
 * stored; every one is answered except a client that went away (logged UPLOAD_INTERRUPTED).
 */
export async function startInternalHttpServer(options: InternalHttpServerOptions): Promise<RunningInternalHttpServer> {
  const { logger } = options;
  const server: Server = createServer(
    traceHttpRequests((request, response) => {
      void handle(request, response).catch((error: unknown) => {
        logger.error({ err: error }, "internal HTTP request failed unexpectedly");
        send(response, 500, errorBody(AppError.internal()));
      });
    }),
  );
  // Long uploads: no whole-request limit here (the gateway has its own timeouts), but idle sockets go.
  server.requestTimeout = 0;
  server.headersTimeout = 30_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://internal");
    if (request.method === "GET" && url.pathname === "/health/live") {
      send(response, 200, { status: "ok" });
      return;
    }
    // The raw path, not the URL's normalised one: a key with `..` segments must be refused, not resolved.
    const rawPath = (request.url ?? "/").split("?")[0];
    if (options.files && (request.method === "GET" || request.method === "HEAD") && rawPath.startsWith(FILES_PATH)) {
      return serveFile(request, response, rawPath.slice(FILES_PATH.length));
    }
    const found = Object.entries(options.uploads)
      .map(([pattern, route]) => ({ route, params: match(pattern, url.pathname) }))
      .find((candidate): candidate is { route: UploadRoute; params: Record<string, string> } => candidate.params !== null);
    if (!found || request.method !== "POST") {
      send(response, 404, errorBody(AppError.notFound("Route")));
      return;
    }
    const userId = verifyInternalRequest(options.secret, request.headers, { method: request.method, path: request.url ?? "/" });
    if (!userId) {
      refuse(request, response, AppError.unauthenticated("Upload requests must come through the gateway"));
      return;
    }
    if (!/^multipart\/form-data/i.test(request.headers["content-type"] ?? "")) {
      refuse(request, response, AppError.validation("Expected multipart/form-data", [{ field: "file", message: "is required" }]));
      return;
    }
    await receive(request, response, userId, found.route, found.params);
  }

  async function serveFile(request: IncomingMessage, response: ServerResponse, encodedKey: string): Promise<void> {
    const { files } = options;
    if (!files) return;
    const userId = verifyInternalRequest(options.secret, request.headers, {
      method: required(request.method, "the request's method"),
      path: request.url ?? "/",
    });
    if (!userId) {
      send(response, 401, errorBody(AppError.unauthenticated("File requests must come through the gateway")));
      return;
    }
    try {
      await files(request, response, userId, encodedKey);
    } catch (error) {
      const appError = error instanceof AppError ? error : null;
      if (!appError) logger.error({ err: error }, "serving a file failed");
      const answer = appError ?? AppError.internal();
      send(response, HTTP_STATUS_BY_KIND[answer.kind], errorBody(answer));
    }
  }

  async function receive(request: IncomingMessage, response: ServerResponse, userId: string, route: UploadRoute, params: Record<string, string>) {
    const fields: Record<string, string> = {};
    const fieldValues: Record<string, string[]> = {};
    const controller = new AbortController();
    // Set by the parser's callbacks: `as` keeps the compiler from narrowing it to null for the code below.
    let stored = null as Promise<StoredUpload & { mimeType: string }> | null;
    let storedKey: string | null = null;
    let failure: AppError | null = null;
    let finished = false;

    const fail = (error: AppError) => {
      failure ??= error;
      controller.abort(error);
    };
    // A function, so that the compiler reads `failure` as the callbacks may have set it, not as narrowed here.
    const throwIfFailed = () => {
      if (failure) throw failure;
    };
    const cleanUp = async () => {
      if (storedKey)
        await options.storage
          .delete(storedKey)
          .catch((error: unknown) => logger.warn({ err: error, key: storedKey }, "could not remove a refused upload"));
    };

    // "close" also follows a fully received body: only an incomplete, destroyed one means the client went away.
    const clientWentAway = () => !request.complete && request.destroyed;
    request.on("close", () => {
      if (finished || response.writableEnded || !clientWentAway()) return;
      logger.warn({ code: "UPLOAD_INTERRUPTED", userId }, "UPLOAD_INTERRUPTED: the client went away during the upload");
      fail(uploadInterrupted());
    });
    /**
     * What an error of the multipart parser or of storage means. Only a client that went away is an interrupted
     * upload (which gets no answer); a body busboy cannot parse is the client's mistake (400); anything else
     * failed on our side while the client waits for an answer (503).
     */
    const classify = (error: unknown, source: "multipart" | "storage"): AppError => {
      if (error instanceof AppError) return error;
      if (clientWentAway()) return uploadInterrupted();
      if (source === "multipart") return invalidMultipartBody();
      logger.error({ err: error, userId }, "storing an upload failed");
      return storageFailed();
    };

    let parser: busboy.Busboy;
    try {
      // Browsers send file names as raw UTF-8 (busboy would read them as Latin-1).
      parser = busboy({ headers: request.headers, defParamCharset: "utf8", limits: { files: 1, fields: 20, fieldSize: 64 * 1024, parts: 30 } });
    } catch (error) {
      refuse(request, response, AppError.validation(`Invalid multipart request: ${(error as Error).message}`));
      return;
    }
    parser.on("field", (name, value) => {
      fields[name] = value;
      (fieldValues[name] ??= []).push(value);
    });
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || stored) {
        stream.resume();
        return;
      }
      const fileName = (info.filename ?? "").trim() || "upload";
      const declaredMimeType = (info.mimeType ?? "application/octet-stream").toLowerCase();
      let maxBytes: number;
      let key: string;
      try {
        maxBytes = route.maxBytes(fields, fileName, declaredMimeType);
        key = route.key(userId, fileName);
      } catch (error) {
        stream.resume();
        fail(error instanceof AppError ? error : AppError.internal());
        return;
      }
      let mimeType = declaredMimeType;
      let size = 0;
      const hash = createHash("sha256");
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > maxBytes) {
            const error = fileTooLarge(maxBytes);
            fail(error);
            callback(error);
            return;
          }
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      const check = new LeadingBytesCheck(route.inspectBytes, (firstBytes) => {
        mimeType = route.inspect(firstBytes, fileName, declaredMimeType);
      });
      // Every stage reports to `fail`, so an error never goes unheard (storage may not listen yet). Busboy's
      // errors are classified where they start; what reaches the later stages unclassified comes from storage
      // (its pipeline destroys the body with the write error).
      const onError = (error: Error) => fail(classify(error, "storage"));
      stream.on("error", (error) => counter.destroy(classify(error, "multipart")));
      const body = stream.pipe(counter).pipe(check);
      counter.on("error", (error) => {
        onError(error);
        check.destroy(error);
      });
      check.on("error", onError);
      storedKey = key;
      stored = options.storage.put(key, body, { contentType: declaredMimeType, signal: controller.signal }).then(
        (object) => ({ storageKey: key, fileName, size: object.size, declaredMimeType, mimeType, sha256: hash.digest("hex") }),
        (error: unknown) => {
          // Also when the body stream saw no error (S3 failing on its own): the request must end with an answer.
          const reason = failure ?? classify(error, "storage");
          fail(reason);
          throw reason;
        },
      );
      // Keep reading the request (and discard) when storage stopped early, so busboy reaches its end.
      stored.catch(() => stream.resume());
    });

    // Busboy fails on a body that is not the multipart it announced (no boundary, a truncated part…).
    parser.on("error", (error) => fail(classify(error, "multipart")));
    const parsed = new Promise<void>((resolve) => {
      parser.on("close", resolve);
      controller.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    request.pipe(parser);

    try {
      await parsed;
      throwIfFailed();
      if (!stored)
        throw new AppError("validation", "UNEXPECTED_FILE", 'A file is required (multipart field "file")', {
          details: [{ field: "file", message: "is required" }],
        });
      const upload = await stored;
      throwIfFailed();
      const result = await route.complete(userId, upload, fields, params, fieldValues);
      finished = true;
      send(response, result.status, result.body);
    } catch (error) {
      finished = true;
      // A put that is still running (aborted above) could otherwise land its object after the clean-up.
      // eslint-disable-next-line no-restricted-syntax -- the put's failure already reached `fail` (its reason is `error`): this only waits for it to settle
      await stored?.catch(() => undefined);
      await cleanUp();
      const appError = error instanceof AppError ? error : null;
      if (appError?.code === "UPLOAD_INTERRUPTED") return;
      if (!appError) logger.error({ err: error }, "upload failed");
      const answer = appError ?? AppError.internal();
      // Answer at once, while the body may still be arriving; the gateway stops the sender.
      refuse(request, response, answer);
    }
  }

  // Node cuts a request after 5 minutes by default, shorter than the spec's 10-minute uploads. The gateway bounds
  // each upload (UPLOAD_*_TIMEOUT_MS) and stops forwarding a late one, which ends here as an interrupted upload;
  // an idle connection is still closed after 15 minutes.
  server.requestTimeout = 0;
  server.timeout = 15 * 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const newUploadKey = (prefix: string, userId: string, fileName: string) => {
  const safeName =
    fileName
      .replace(/[^A-Za-z0-9._-]+/g, "_")
      .replace(/^[._]+/, "")
      .slice(-100) || "file";
  return `${prefix}/${userId}/${randomUUID()}/${safeName}`;
};
