import { pipeline } from "node:stream/promises";
import { AppError, type Logger } from "@study/platform";
import type { GetNoteFile } from "../../application/get-note-file";
import type { FileStorage } from "../../application/ports/file-storage.port";
import type { NoteFile } from "../../domain/note";
import { assertValidStorageKey, type FileRoute } from "@study/storage";
import { contentDisposition, requestedByteRange } from "./download-headers";

function decodeStorageKey(encodedKey: string): string {
  let key: string;
  try {
    key = encodedKey.split("/").map(decodeURIComponent).join("/");
  } catch {
    throw new AppError("validation", "INVALID_STORAGE_KEY", "The file path is not validly URL-encoded");
  }
  assertValidStorageKey(key);
  return key;
}

function fileHeaders(file: NoteFile): Record<string, string> {
  return {
    // TXT and CSV attachments were checked to be UTF-8 when uploaded.
    "content-type": file.mimeType.startsWith("text/") ? `${file.mimeType}; charset=utf-8` : file.mimeType,
    // Audio plays in place; attachments are saved, never rendered on the API's origin.
    "content-disposition": contentDisposition(file.role === "audio" ? "inline" : "attachment", file.fileName),
    "x-content-type-options": "nosniff",
    // Owner-scoped and revocable (a deleted note's files answer 404 at once): no cache may keep a copy.
    "cache-control": "private, no-store",
    "accept-ranges": "bytes",
  };
}

/**
 * A stored file (a note's audio or an attachment) streamed from storage to its owner, never held in memory:
 * 200 with the whole file, 206 with the one byte range asked for (players seek with `Range`), 416 for a range
 * outside the file; HEAD answers the headers only. Anyone else's key, a deleted note's and an unknown one are
 * 404 alike; a malformed key (`..`, empty segments…) is 400 INVALID_STORAGE_KEY.
 */
export function fileDownloadRoute(options: { storage: Pick<FileStorage, "stat" | "get">; getNoteFile: GetNoteFile; logger: Logger }): FileRoute {
  return async (request, response, userId, encodedKey) => {
    const key = decodeStorageKey(encodedKey);
    const file = await options.getNoteFile.execute(userId, key);
    const { size } = await options.storage.stat(key);
    const range = requestedByteRange(request.headers.range, size);
    if (range === "unsatisfiable") {
      response.writeHead(416, { "content-range": `bytes */${size}`, "accept-ranges": "bytes" }).end();
      return;
    }
    const headers = range
      ? { ...fileHeaders(file), "content-length": String(range.end - range.start + 1), "content-range": `bytes ${range.start}-${range.end}/${size}` }
      : { ...fileHeaders(file), "content-length": String(size) };
    const status = range ? 206 : 200;
    if (request.method === "HEAD" || size === 0) {
      response.writeHead(status, headers).end();
      return;
    }
    // Opened before the head is written, so a failure to open still answers with an error status.
    const body = await options.storage.get(key, range ?? undefined);
    response.writeHead(status, headers);
    try {
      await pipeline(body, response);
    } catch (error) {
      // A client that stops reading (a player seeking elsewhere) is routine; storage failing mid-way is not.
      if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE")
        options.logger.warn({ err: error, key }, "streaming a stored file failed");
    }
  };
}
