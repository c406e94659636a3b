import { newId } from "@study/grpc/ids";
import { requireUserId } from "@study/platform/ids";
import { createDocument, validateUploadFields, type Document, type StoredFile, type UploadFields } from "../domain/document";
import { documentUploaded } from "./document-events";
import type { CourseDirectory } from "./ports/course-directory.port";
import type { DocumentRepository } from "./ports/document-repository.port";

/** An accepted upload: the new document, and the user's earlier document of the same file when there is one. */
export interface UploadedDocument {
  document: Document;
  duplicateOf: string | null;
}

/**
 * POST /api/documents/upload, once the file is stored and its format decided from its bytes: checks the fields
 * and the course (another user's: NOT_FOUND), then stores the document (PENDING) with the DocumentUploaded event,
 * which brings it to the worker. The caller removes the stored file when this throws.
 *
 * The same file uploaded again by the same user (same SHA-256, in any course) is kept — the user may mean it — and
 * the answer names the earliest such document (`duplicateOf`); another user's documents are never looked at.
 */
export class UploadDocument {
  constructor(
    private readonly documents: Pick<DocumentRepository, "insert" | "findEarliestWithContentHash">,
    private readonly courses: CourseDirectory,
  ) {}

  async execute(userId: string, fields: UploadFields, file: StoredFile): Promise<Document> {
    return (await this.upload(userId, fields, file)).document;
  }

  async upload(userId: string, fields: UploadFields, file: StoredFile): Promise<UploadedDocument> {
    const upload = validateUploadFields(fields, file.fileName);
    await this.courses.assertOwned(userId, upload.courseId);
    const document = createDocument(newId(), requireUserId(userId), upload, file, new Date());
    const earlier = document.contentHash ? await this.documents.findEarliestWithContentHash(document.userId, document.contentHash) : null;
    await this.documents.insert(document, [documentUploaded(document)]);
    return { document, duplicateOf: earlier?.id ?? null };
  }
}
