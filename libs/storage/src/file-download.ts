import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { Logger } from "@study/platform";
import type { ByteRange, FileStorage } from "./port";

/**
 * The one byte range a `Range` header asks of a file of `size` bytes (RFC 9110 §14): `bytes=first-last`,
 * `bytes=first-` or `bytes=-suffixLength`. Null when the whole file is to be sent: no header, another unit, a
 * malformed header, or several ranges (a server may ignore Range; players ask for one). "unsatisfiable" when
 * the range holds no byte of the file (416).
 */
export function requestedByteRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.replace(/\s+/g, "") ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffixLength = Number(match[2]);
    if (suffixLength === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffixLength), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === "" ? Infinity : Number(match[2]);
  if (last < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(last, size - 1) };
}

/** RFC 8187 `attr-char`s are kept; everything else is percent-encoded (encodeURIComponent leaves `'()*`). */
const encodeExtValue = (text: string) => encodeURIComponent(text).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `Content-Disposition` naming the file: an ASCII fallback in `filename` (for old clients) and the exact
 * name, UTF-8 encoded, in `filename*` (RFC 6266).
 */
export function contentDisposition(type: "inline" | "attachment", fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}

/** How a stored file is answered: its content type, and whether a browser may show it in place. */
export interface DownloadedFile {
  key: string;
  fileName: string;
  contentType: string;
  disposition: "inline" | "attachment";
}

/**
 * Streams a stored file to its (already checked) owner, never holding it in memory: 200 with the whole file, 206
 * with the one byte range asked for, 416 for a range outside the file; HEAD answers the headers only. Headers:
 * the content type, Content-Disposition with the file's name, `X-Content-Type-Options: nosniff` and
 * `Cache-Control: private, no-store` (owner-scoped and revocable: no cache may keep a copy).
 */
export async function sendStoredFile(
  request: IncomingMessage,
  response: ServerResponse,
  file: DownloadedFile,
  options: { storage: Pick<FileStorage, "stat" | "get">; logger: Logger },
): Promise<void> {
  const { size } = await options.storage.stat(file.key);
  const range = requestedByteRange(request.headers.range, size);
  if (range === "unsatisfiable") {
    response.writeHead(416, { "content-range": `bytes */${size}`, "accept-ranges": "bytes" }).end();
    return;
  }
  const common = {
    "content-type": file.contentType,
    "content-disposition": contentDisposition(file.disposition, file.fileName),
    "x-content-type-options": "nosniff",
    "cache-control": "private, no-store",
    "accept-ranges": "bytes",
  };
  const headers = range
    ? { ...common, "content-length": String(range.end - range.start + 1), "content-range": `bytes ${range.start}-${range.end}/${size}` }
    : { ...common, "content-length": String(size) };
  const status = range ? 206 : 200;
  if (request.method === "HEAD" || size === 0) {
    response.writeHead(status, headers).end();
    return;
  }
  // Opened before the head is written, so a failure to open still answers with an error status.
  const body = await options.storage.get(file.key, range ?? undefined);
  response.writeHead(status, headers);
  try {
    await pipeline(body, response);
  } catch (error) {
    // A client that stops reading (a player seeking elsewhere) is routine; storage failing mid-way is not.
    if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE")
      options.logger.warn({ err: error, key: file.key }, "streaming a stored file failed");
  }
}
