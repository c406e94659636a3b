import type { Logger } from "@study/platform";
import { sendStoredFile, type FileRoute } from "@study/storage";
import type { FileStorage } from "@study/storage/port";
import type { GetDocumentFile } from "../../application/get-document-file";

/**
 * `GET|HEAD /files/<document id>` on the internal endpoint (gateway: `GET /api/documents/{id}/file`): the stored
 * file of one of the caller's documents, streamed from storage with byte ranges (`sendStoredFile`), in the
 * content type of its detected format, inline for PDF, images and plain text, else as an attachment. Another
 * user's id, an unknown one and anything that is no id are 404 alike.
 */
export function documentFileRoute(options: {
  storage: Pick<FileStorage, "stat" | "get">;
  getDocumentFile: GetDocumentFile;
  logger: Logger;
}): FileRoute {
  return async (request, response, userId, encodedId) => {
    let documentId: string;
    try {
      documentId = decodeURIComponent(encodedId);
    } catch {
      documentId = "";
    }
    const file = await options.getDocumentFile.execute(userId, documentId);
    await sendStoredFile(
      request,
      response,
      { key: file.storageKey, fileName: file.fileName, contentType: file.mimeType, disposition: file.disposition },
      options,
    );
  };
}
