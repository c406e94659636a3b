import { newId } from "@study/grpc/ids";
import { requireUserId } from "@study/platform/ids";
import { createDocument, validateUploadFields, type Document, type StoredFile, type UploadFields } from "../domain/document";
import { documentUploaded } from "./document-events";
import type { CourseDirectory } from "./ports/course-directory.port";
import type { DocumentRepository } from "./ports/document-repository.port";

/**
 * POST /api/documents/upload, once the file is stored and its format decided from its bytes: checks the fields
 * and the course (another user's: NOT_FOUND), then stores the document (PENDING) with the DocumentUploaded event,
 * which brings it to the worker. The caller removes the stored file when this throws.
 */
export class UploadDocument {
  constructor(
    private readonly documents: Pick<DocumentRepository, "insert">,
    private readonly courses: CourseDirectory,
  ) {}

  async execute(userId: string, fields: UploadFields, file: StoredFile): Promise<Document> {
    const upload = validateUploadFields(fields, file.fileName);
    await this.courses.assertOwned(userId, upload.courseId);
    const document = createDocument(newId(), requireUserId(userId), upload, file, new Date());
    await this.documents.insert(document, [documentUploaded(document)]);
    return document;
  }
}
