import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { isProcessed, pagesOf, type Document } from "../domain/document";
import type { DocumentRepository } from "./ports/document-repository.port";

const notFound = () => AppError.notFound("Document");

/** The user's document in that course, with its text; another user's, another course's or an unknown id: NOT_FOUND. */
export class GetDocument {
  constructor(private readonly documents: Pick<DocumentRepository, "findOwned">) {}

  async execute(userId: string, courseId: string, documentId: string): Promise<Document> {
    requireUserId(userId);
    if (!courseId) throw AppError.validation("courseId is required", [{ field: "courseId", message: "is required" }]);
    if (!isUuid(documentId) || !isUuid(courseId)) throw notFound();
    const document = await this.documents.findOwned(userId, courseId, documentId);
    if (!document) throw notFound();
    return document;
  }
}

/** The text of a processed document by page, for generation; not processed yet (or failed): DOCUMENT_NOT_PROCESSED. */
export class GetDocumentText {
  constructor(private readonly documents: Pick<DocumentRepository, "findOwnedAnyCourse">) {}

  async execute(userId: string, documentId: string): Promise<{ document: Document; pages: { number: number; text: string }[] }> {
    requireUserId(userId);
    if (!isUuid(documentId)) throw notFound();
    const document = await this.documents.findOwnedAnyCourse(userId, documentId);
    if (!document) throw notFound();
    if (!isProcessed(document)) {
      const why =
        document.status === "FAILED" ? `its processing failed: ${document.failureReason ?? "unknown reason"}` : "it is still being processed";
      throw new AppError("precondition", "DOCUMENT_NOT_PROCESSED", `The document has no text yet: ${why}`);
    }
    return { document, pages: pagesOf(document) };
  }
}
