import { AppError, type Logger } from "@study/platform";
import type { GetNoteFile } from "../../application/get-note-file";
import type { FileStorage } from "../../application/ports/file-storage.port";
import type { NoteFile } from "../../domain/note";
import { assertValidStorageKey, sendStoredFile, type FileRoute } from "@study/storage";

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

/** TXT and CSV attachments were checked to be UTF-8 when uploaded. */
const contentTypeOf = (file: NoteFile) => (file.mimeType.startsWith("text/") ? `${file.mimeType}; charset=utf-8` : file.mimeType);

/**
 * A stored file (a note's audio or an attachment) streamed from storage to its owner (`sendStoredFile`: whole,
 * one byte range — players seek with `Range` — or 416; HEAD answers the headers only). Audio plays in place;
 * attachments are saved, never rendered on the API's origin. Anyone else's key, a deleted note's and an unknown
 * one are 404 alike; a malformed key (`..`, empty segments…) is 400 INVALID_STORAGE_KEY.
 */
export function fileDownloadRoute(options: { storage: Pick<FileStorage, "stat" | "get">; getNoteFile: GetNoteFile; logger: Logger }): FileRoute {
  return async (request, response, userId, encodedKey) => {
    const key = decodeStorageKey(encodedKey);
    const file = await options.getNoteFile.execute(userId, key);
    await sendStoredFile(
      request,
      response,
      { key, fileName: file.fileName, contentType: contentTypeOf(file), disposition: file.role === "audio" ? "inline" : "attachment" },
      options,
    );
  };
}
