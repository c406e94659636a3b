import { documents as api } from "@study/contracts";
import { isDocumentType, isProcessed, type Document, type ProcessingStatus } from "../../domain/document";

const DOCUMENT_TYPE_PREFIX = "DOCUMENT_TYPE_";

/** A document type as the API carries it: `PDF` → DOCUMENT_TYPE_PDF. */
export const documentTypeToProto = (type: string): api.DocumentType => api.documentTypeFromJSON(`${DOCUMENT_TYPE_PREFIX}${type}`);

/**
 * A type a request names, as the use cases take it: UNSPECIFIED is none; a number this service has no name for is
 * passed on as such, for the use case to refuse.
 */
export function documentTypeFromProto(value: api.DocumentType): string | undefined {
  if (value === api.DocumentType.DOCUMENT_TYPE_UNSPECIFIED) return undefined;
  const name = api.documentTypeToJSON(value).slice(DOCUMENT_TYPE_PREFIX.length);
  return isDocumentType(name) ? name : String(value);
}

const STATUS: Record<ProcessingStatus, api.ProcessingStatus> = {
  PENDING: api.ProcessingStatus.PROCESSING_STATUS_PENDING,
  PROCESSING: api.ProcessingStatus.PROCESSING_STATUS_PROCESSING,
  COMPLETED: api.ProcessingStatus.PROCESSING_STATUS_COMPLETED,
  FAILED: api.ProcessingStatus.PROCESSING_STATUS_FAILED,
};

/** A document as the API carries it; `withText` adds the extracted text and its page spans (GetDocument). */
export function toProtoDocument(document: Document, { withText }: { withText: boolean }): api.Document {
  return {
    id: document.id,
    userId: document.userId,
    courseId: document.courseId,
    title: document.title,
    fileName: document.fileName,
    fileSize: document.fileSize,
    mimeType: document.mimeType,
    filePath: document.storageKey,
    description: document.description ?? undefined,
    documentType: documentTypeToProto(document.documentType),
    tags: document.tags,
    processed: isProcessed(document),
    extractedText: withText ? (document.extractedText ?? undefined) : undefined,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    format: document.format,
    status: STATUS[document.status],
    failureReason: document.failureReason ?? undefined,
    author: document.author ?? undefined,
    pageCount: document.pageCount,
    wordCount: document.wordCount,
    pages: withText ? document.pages.map((page) => ({ ...page })) : [],
    calendarEventsCreated: document.calendarEventsCreated ?? undefined,
  };
}
