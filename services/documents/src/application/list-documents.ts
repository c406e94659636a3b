import { AppError, type FieldViolation } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { isDocumentType, type Document } from "../domain/document";
import type { CourseDirectory } from "./ports/course-directory.port";
import type { DocumentRepository } from "./ports/document-repository.port";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ListDocumentsQuery {
  courseId: string;
  documentType?: string;
  limit?: number;
  offset?: number;
}

/**
 * The course's documents of the user, newest first (without their text), with the total. Another user's course, or
 * one that does not exist, is NOT_FOUND (as everywhere in the API), not an empty list.
 */
export class ListDocuments {
  constructor(
    private readonly documents: Pick<DocumentRepository, "listOwned">,
    private readonly courses: CourseDirectory,
  ) {}

  async execute(userId: string, query: ListDocumentsQuery): Promise<{ documents: Document[]; total: number; limit: number; offset: number }> {
    requireUserId(userId);
    // proto3 sends an unset limit as 0: the default page size.
    const limit = query.limit || DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const violations: FieldViolation[] = [];
    if (!query.courseId) violations.push({ field: "courseId", message: "is required" });
    else if (!isUuid(query.courseId)) violations.push({ field: "courseId", message: "must be a course id (UUID)" });
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
      violations.push({ field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` });
    if (!Number.isInteger(offset) || offset < 0) violations.push({ field: "offset", message: "must be 0 or more" });
    const documentType = query.documentType?.toUpperCase();
    if (documentType !== undefined && !isDocumentType(documentType)) violations.push({ field: "documentType", message: "is not a document type" });
    if (violations.length > 0) throw AppError.validation("Invalid list query", violations);
    await this.courses.assertOwned(userId, query.courseId);
    const page = await this.documents.listOwned(userId, {
      courseId: query.courseId,
      documentType: documentType !== undefined && isDocumentType(documentType) ? documentType : undefined,
      limit,
      offset,
    });
    return { ...page, limit, offset };
  }
}
