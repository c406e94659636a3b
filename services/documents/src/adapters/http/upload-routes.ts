import { documents as api } from "@study/contracts";
import { AppError } from "@study/platform";
import { newUploadKey, type UploadRoute } from "@study/storage";
import type { FileStorage } from "@study/storage/port";
import type { FormatDetector } from "../../application/ports/format-detector.port";
import type { UploadDocument } from "../../application/upload-document";
import type { UploadSyllabus } from "../../application/upload-syllabus";
import type { StoredFile } from "../../domain/document";
import type { DocumentFormat } from "../../domain/document-format";
import { DOCUMENT_FORMATS } from "../../domain/document-format";
import { toProtoDocument } from "../grpc/proto-mapping";

export const ACCEPTED_FORMATS_TEXT = "PDF, DOC, DOCX, TXT, RTF, MD, PPT, PPTX, JPG, JPEG, PNG, GIF, WEBP, XLS, XLSX, CSV";

export const unexpectedFile = () =>
  new AppError("validation", "UNEXPECTED_FILE", `Unsupported file type: expected ${ACCEPTED_FORMATS_TEXT}`, {
    details: [{ field: "file", message: "is not a supported document (its content was checked, not its name)" }],
  });

/**
 * The format of a stored upload, from its bytes (the detector reads it back from storage: a zip's or an OLE
 * file's inner layout needs more than the first bytes); anything else is UNEXPECTED_FILE (the caller removes it).
 */
export async function detectStoredFormat(
  detector: FormatDetector,
  storage: Pick<FileStorage, "get">,
  key: string,
  size: number,
): Promise<DocumentFormat> {
  const format = await detector.detect(() => storage.get(key), size);
  if (!format || !DOCUMENT_FORMATS.includes(format)) throw unexpectedFile();
  return format;
}

/**
 * Tags sent as a repeated field (`tags=a&tags=b`, or `tags[]`) become one JSON array, which the upload's rules
 * read like a JSON array sent in one field; a single `tags` field is left as sent (a JSON array or a comma list).
 */
export function repeatedTags(fieldValues: Record<string, string[]>): { tags?: string } {
  const values = [...(fieldValues.tags ?? []), ...(fieldValues["tags[]"] ?? [])];
  return values.length > 1 || fieldValues["tags[]"] ? { tags: JSON.stringify(values) } : {};
}

interface StoredDocumentRouteOptions {
  maxBytes: number;
  storage: FileStorage;
  detector: FormatDetector;
}

/**
 * An upload route of documents: the file is stored as it streams in (at most `maxBytes`: 413 with nothing kept),
 * then its format is decided from its bytes (UNEXPECTED_FILE otherwise), then `accept` makes the records. The
 * upload server removes the stored file when any step throws.
 */
function storedDocumentRoute(
  options: StoredDocumentRouteOptions,
  accept: (userId: string, fields: Record<string, string>, file: StoredFile) => Promise<Record<string, unknown>>,
): UploadRoute {
  return {
    maxBytes: () => options.maxBytes,
    // Nothing is decided from the first bytes alone (the stored file is read back): pass them through.
    inspectBytes: 0,
    key: (userId, fileName) => newUploadKey("documents", userId, fileName),
    inspect: (_firstBytes, _fileName, declared) => declared,
    async complete(userId, upload, fields, _params, fieldValues) {
      const format = await detectStoredFormat(options.detector, options.storage, upload.storageKey, upload.size);
      const file = { storageKey: upload.storageKey, fileName: upload.fileName, size: upload.size, format, contentHash: upload.sha256 };
      const body = await accept(userId, { ...fields, ...repeatedTags(fieldValues) }, file);
      return { status: 200, body };
    },
  };
}

/**
 * POST /uploads/documents (gateway: POST /api/documents/upload): multipart `file`, `courseId`, `title?`,
 * `description?`, `documentType?`, `tags?`. Answers 200 `{document, duplicateOf}` (processed false; duplicateOf the
 * user's earlier document of the same file, or null); the worker reads it.
 */
export function documentUploadRoute(options: StoredDocumentRouteOptions & { uploadDocument: UploadDocument }): UploadRoute {
  return storedDocumentRoute(options, async (userId, fields, file) => {
    const { document, duplicateOf } = await options.uploadDocument.upload(userId, fields, file);
    return { document: api.Document.toJSON(toProtoDocument(document, { withText: false })), duplicateOf };
  });
}

/**
 * POST /uploads/syllabus (gateway: POST /api/documents/upload-syllabus): multipart `file`, `courseId`, `title?`,
 * `description?`, `timeZone?`. UploadSyllabus reads it before answering 200 `{document, eventsCreated,
 * eventsExisting}` (processed true).
 */
export function syllabusUploadRoute(options: StoredDocumentRouteOptions & { uploadSyllabus: UploadSyllabus }): UploadRoute {
  return storedDocumentRoute(options, async (userId, fields, file) => {
    const { document, eventsCreated, eventsExisting } = await options.uploadSyllabus.execute(userId, fields, file);
    return { document: api.Document.toJSON(toProtoDocument(document, { withText: true })), eventsCreated, eventsExisting };
  });
}
