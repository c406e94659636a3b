import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { documentDeleted } from "./document-events";
import type { DocumentRepository } from "./ports/document-repository.port";

/**
 * Deletes the user's document with its text and chunks; the DocumentDeleted event has the worker remove the
 * stored file and search drop its entry. NOT_FOUND for another user's or another course's document.
 */
export class DeleteDocument {
  constructor(private readonly documents: Pick<DocumentRepository, "deleteOwned">) {}

  async execute(userId: string, courseId: string, documentId: string): Promise<void> {
    requireUserId(userId);
    if (!courseId) throw AppError.validation("courseId is required", [{ field: "courseId", message: "is required" }]);
    if (!isUuid(documentId) || !isUuid(courseId)) throw AppError.notFound("Document");
    const deleted = await this.documents.deleteOwned(userId, courseId, documentId, (document) => [documentDeleted(document)]);
    if (!deleted) throw AppError.notFound("Document");
  }
}

/** A deleted course takes its documents with it (courses.course.deleted.v1). */
export class DeleteCourseDocuments {
  constructor(private readonly documents: Pick<DocumentRepository, "deleteCourse">) {}

  async execute(userId: string, courseId: string): Promise<number> {
    const deleted = await this.documents.deleteCourse(userId, courseId, (document) => [documentDeleted(document)]);
    return deleted.length;
  }
}
