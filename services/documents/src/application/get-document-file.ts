import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { downloadDispositionOf } from "../domain/document-format";
import type { DocumentRepository } from "./ports/document-repository.port";

/** The stored file of a document, as its owner downloads it. */
export interface DocumentFile {
  storageKey: string;
  fileName: string;
  /** The content type of the detected format (what was stored), never the client's. */
  mimeType: string;
  disposition: "inline" | "attachment";
}

/**
 * The file behind one of the user's documents (`GET /api/documents/{id}/file`), in whatever course and state it
 * is (a failed extraction still has its file). Another user's id and an unknown one are NOT_FOUND alike.
 */
export class GetDocumentFile {
  constructor(private readonly documents: Pick<DocumentRepository, "findOwnedWithoutText">) {}

  async execute(userId: string, documentId: string): Promise<DocumentFile> {
    requireUserId(userId);
    if (!isUuid(documentId)) throw AppError.notFound("Document");
    const document = await this.documents.findOwnedWithoutText(userId, documentId);
    if (!document) throw AppError.notFound("Document");
    return {
      storageKey: document.storageKey,
      fileName: document.fileName,
      mimeType: document.mimeType,
      disposition: downloadDispositionOf(document.format),
    };
  }
}
