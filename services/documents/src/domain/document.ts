import { AppError, type FieldViolation } from "@study/platform/errors";
import { DOCUMENT_TYPES, documentTypeOfFormat, mimeTypeOfFormat, type DocumentFormat, type DocumentType } from "./document-format";

export const PROCESSING_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED"] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];

/** Where a page's text lies in the document's extracted text (character offsets, end exclusive). */
export interface PageSpan {
  number: number;
  startOffset: number;
  endOffset: number;
  ocr: boolean;
}

/**
 * An uploaded document. Its owner cannot change it (the spec: delete and re-upload); processing moves `status`
 * and fills the text and metadata. `processed` (the spec's field) is `status === "COMPLETED"`.
 */
export interface Document {
  id: string;
  userId: string;
  courseId: string;
  title: string;
  fileName: string;
  fileSize: number;
  format: DocumentFormat;
  mimeType: string;
  storageKey: string;
  /** SHA-256 (hex) of the file as uploaded; null for documents stored before it was kept. */
  contentHash: string | null;
  description: string | null;
  documentType: DocumentType;
  tags: string[];
  status: ProcessingStatus;
  failureReason: string | null;
  extractedText: string | null;
  pages: PageSpan[];
  author: string | null;
  pageCount: number;
  wordCount: number;
  calendarEventsCreated: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The fields of an upload, as the client sent them (strings of a multipart form). */
export interface UploadFields {
  title?: string;
  description?: string;
  courseId?: string;
  documentType?: string;
  /** A JSON array (`["a","b"]`), or a comma-separated list. */
  tags?: string;
}

/** The stored file an upload brought. */
export interface StoredFile {
  storageKey: string;
  fileName: string;
  size: number;
  format: DocumentFormat;
  /** SHA-256 (hex) of its bytes, computed while it streamed in. */
  contentHash?: string;
}

export const DOCUMENT_LIMITS = { title: 255, description: 2000, tags: 20, tag: 50, failureReason: 1000 } as const;

// Course ids are UUIDs (the domain may import only @study/platform/errors, hence not @study/platform/ids).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isDocumentType = (value: string): value is DocumentType => (DOCUMENT_TYPES as readonly string[]).includes(value);

/** Tags from a form field: a JSON array of strings, or a comma-separated list; trimmed, blanks and repeats dropped. */
export function parseTags(raw: string | undefined, violations: FieldViolation[]): string[] {
  const text = raw?.trim() ?? "";
  if (text === "") return [];
  let values: unknown[];
  if (text.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(text);
      values = Array.isArray(parsed) ? parsed : [null];
    } catch {
      values = [null];
    }
  } else values = text.split(",");
  if (values.some((value) => typeof value !== "string")) {
    violations.push({ field: "tags", message: "must be a JSON array of strings or a comma-separated list" });
    return [];
  }
  const tags = [...new Set((values as string[]).map((value) => value.trim()).filter((value) => value !== ""))];
  if (tags.length > DOCUMENT_LIMITS.tags) violations.push({ field: "tags", message: `at most ${DOCUMENT_LIMITS.tags} tags` });
  if (tags.some((tag) => tag.length > DOCUMENT_LIMITS.tag))
    violations.push({ field: "tags", message: `each tag has at most ${DOCUMENT_LIMITS.tag} characters` });
  return tags;
}

/** A title made from a file name: the name as uploaded, shortened to the limit. */
const titleFromFileName = (fileName: string): string => fileName.trim().slice(0, DOCUMENT_LIMITS.title) || "Untitled document";

/**
 * Checks the fields of an upload before anything is stored under them: courseId (a UUID), title (1-255; default
 * the file name), description (≤ 2000), documentType (the spec's enum), tags. Throws VALIDATION_ERROR naming
 * every bad field.
 */
export function validateUploadFields(fields: UploadFields, fileName: string, options: { documentType?: DocumentType } = {}) {
  const violations: FieldViolation[] = [];
  const courseId = fields.courseId?.trim() ?? "";
  if (courseId === "") violations.push({ field: "courseId", message: "is required" });
  else if (!UUID.test(courseId)) violations.push({ field: "courseId", message: "must be a UUID" });
  const rawTitle = fields.title?.trim() ?? "";
  if (rawTitle.length > DOCUMENT_LIMITS.title) violations.push({ field: "title", message: `must be 1-${DOCUMENT_LIMITS.title} characters` });
  const description = fields.description?.trim() ?? "";
  if (description.length > DOCUMENT_LIMITS.description)
    violations.push({ field: "description", message: `must be at most ${DOCUMENT_LIMITS.description} characters` });
  let documentType: DocumentType | null = options.documentType ?? null;
  const rawType = fields.documentType?.trim().toUpperCase() ?? "";
  if (!options.documentType && rawType !== "") {
    if (isDocumentType(rawType)) documentType = rawType;
    else violations.push({ field: "documentType", message: `must be one of ${DOCUMENT_TYPES.join(", ")}` });
  }
  const tags = parseTags(fields.tags, violations);
  if (violations.length > 0) throw AppError.validation("Invalid document fields", violations);
  return {
    courseId,
    title: rawTitle === "" ? titleFromFileName(fileName) : rawTitle,
    description: description === "" ? null : description,
    documentType,
    tags,
  };
}

export type ValidatedUpload = ReturnType<typeof validateUploadFields>;

/** A new document (PENDING) for a stored file; the type is the one asked for, or the format's. */
export function createDocument(id: string, userId: string, upload: ValidatedUpload, file: StoredFile, now: Date): Document {
  return {
    id,
    userId,
    courseId: upload.courseId,
    title: upload.title,
    fileName: file.fileName.slice(0, 255),
    fileSize: file.size,
    format: file.format,
    mimeType: mimeTypeOfFormat(file.format),
    storageKey: file.storageKey,
    contentHash: file.contentHash ?? null,
    description: upload.description,
    documentType: upload.documentType ?? documentTypeOfFormat(file.format),
    tags: upload.tags,
    status: "PENDING",
    failureReason: null,
    extractedText: null,
    pages: [],
    author: null,
    pageCount: 0,
    wordCount: 0,
    calendarEventsCreated: null,
    createdAt: now,
    updatedAt: now,
  };
}

export const isProcessed = (document: Pick<Document, "status">): boolean => document.status === "COMPLETED";

/** Words of a text, as a reader counts them (runs of letters or digits, with inner apostrophes and hyphens). */
export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
}

/** Pages of text joined into one text (pages separated by a blank line) with each page's span in it. */
export function joinPages(pages: { number: number; text: string; ocr: boolean }[]): { text: string; spans: PageSpan[] } {
  const spans: PageSpan[] = [];
  let text = "";
  for (const page of pages) {
    const pageText = page.text.trim();
    if (pageText === "") continue;
    if (text !== "") text += "\n\n";
    spans.push({ number: page.number, startOffset: text.length, endOffset: text.length + pageText.length, ocr: page.ocr });
    text += pageText;
  }
  return { text, spans };
}

/** The pages of a processed document, cut back out of its text. */
export function pagesOf(document: Pick<Document, "extractedText" | "pages">): { number: number; text: string }[] {
  const text = document.extractedText ?? "";
  return document.pages.map((span) => ({ number: span.number, text: text.slice(span.startOffset, span.endOffset) }));
}

/** A failure reason as stored and shown: one line, bounded. */
export const failureReasonOf = (message: string): string =>
  message.replace(/\s+/g, " ").trim().slice(0, DOCUMENT_LIMITS.failureReason) || "The document could not be processed";
