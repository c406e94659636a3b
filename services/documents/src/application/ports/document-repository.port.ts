import type { EventEnvelope } from "@study/events/envelope";
import type { Document, PageSpan } from "../../domain/document";
import type { DocumentType } from "../../domain/document-format";

/** A passage of a processed document as stored for search (see prepare-chunks.ts). */
export interface StoredChunk {
  page: number;
  position: number;
  text: string;
  startOffset: number;
  endOffset: number;
  embedding: number[] | null;
  embeddingModel: string | null;
}

/** What processing found in a document. */
export interface ProcessingResult {
  extractedText: string;
  pages: PageSpan[];
  author: string | null;
  pageCount: number;
  wordCount: number;
  calendarEventsCreated: number | null;
}

export interface DocumentListQuery {
  courseId: string;
  documentType?: DocumentType;
  limit: number;
  offset: number;
}

/**
 * Persistence of documents and their chunks. Every write takes the events it causes: the adapter stores them in
 * the outbox in the same transaction as the change.
 */
export interface DocumentRepository {
  /** Stores a new document (with its chunks when it is already processed, as a syllabus is). */
  insert(document: Document, events: EventEnvelope[], chunks?: StoredChunk[]): Promise<void>;
  /** Stores events that no record change goes with (a syllabus refused before anything was kept). */
  announce(events: EventEnvelope[]): Promise<void>;
  /** The user's document in that course (with its text), or null. */
  findOwned(userId: string, courseId: string, documentId: string): Promise<Document | null>;
  /** The user's document in any of their courses (with its text), or null. */
  findOwnedAnyCourse(userId: string, documentId: string): Promise<Document | null>;
  /** The user's document in any of their courses, without its text (extractedText null, no pages), or null. */
  findOwnedWithoutText(userId: string, documentId: string): Promise<Document | null>;
  /** The user's earliest document (any course) whose file has this SHA-256, without its text, or null. */
  findEarliestWithContentHash(userId: string, contentHash: string): Promise<Pick<Document, "id"> | null>;
  /** Newest first, without text. */
  listOwned(userId: string, query: DocumentListQuery): Promise<{ documents: Document[]; total: number }>;
  /** Deletes the document (its chunks go with it) with the events built from it; null when there was none. */
  deleteOwned(userId: string, courseId: string, documentId: string, events: (deleted: Document) => EventEnvelope[]): Promise<Document | null>;
  /** Deletes every document of the user's course, each with its events; returns them. */
  deleteCourse(userId: string, courseId: string, events: (deleted: Document) => EventEnvelope[]): Promise<Document[]>;
  /**
   * Marks a PENDING or PROCESSING document PROCESSING and counts the attempt (a worker that died leaves it
   * PROCESSING; the redelivery starts it again). Null when it is gone or already finished (a redelivered message).
   */
  startProcessing(documentId: string): Promise<{ document: Document; attempts: number } | null>;
  /** PROCESSING → COMPLETED with the text, metadata and chunks, and the events built from it; null if it is gone. */
  complete(
    documentId: string,
    result: ProcessingResult,
    chunks: StoredChunk[],
    events: (saved: Document) => EventEnvelope[],
  ): Promise<Document | null>;
  /** → FAILED with the reason, and the events built from it; null if it is gone or finished. */
  fail(documentId: string, reason: string, events: (saved: Document) => EventEnvelope[]): Promise<Document | null>;
  /** Up to `limit` documents (of one user, or of all) with ids after `afterId`, in id order, with their text. */
  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Document[]>;
}
