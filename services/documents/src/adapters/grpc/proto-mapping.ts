import { documents as api } from "@study/contracts";
import { isProcessed, type Document, type ProcessingStatus } from "../../domain/document";

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
    documentType: document.documentType,
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
