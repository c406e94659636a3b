import type { Logger } from "@study/platform";
import type { FileStorage, ScratchSpace } from "@study/storage/port";
import { countWords, failureReasonOf, joinPages, type Document } from "../domain/document";
import { documentFailed, documentProcessed } from "./document-events";
import type { DocumentRepository, ProcessingResult, StoredChunk } from "./ports/document-repository.port";
import { ExtractionFailedError, type ExtractionLimits, type TextExtractor } from "./ports/text-extractor.port";

/** Starts of processing (deliveries of the work message) after which an interrupted document is failed. */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const INTERRUPTED_TOO_OFTEN = "Processing was interrupted too many times";

/** Turns extracted pages into the chunks stored for search (with embeddings when a provider is configured). */
export type ChunkPreparer = (pages: { number: number; text: string; startOffset: number }[], signal?: AbortSignal) => Promise<StoredChunk[]>;

export interface ProcessDocumentDependencies {
  documents: Pick<DocumentRepository, "startProcessing" | "complete" | "fail">;
  storage: Pick<FileStorage, "download">;
  scratch: ScratchSpace;
  extractor: TextExtractor;
  prepareChunks: ChunkPreparer;
  limits: ExtractionLimits;
  logger: Logger;
  maxAttempts?: number;
}

/** What reading a stored file gave: its text by page and what processing stores. */
export interface ReadDocument {
  result: ProcessingResult;
  pages: { number: number; text: string }[];
  chunks: StoredChunk[];
}

/**
 * Reads a stored file: downloads it to a scratch folder, extracts its text page by page (OCR where needed, within
 * the limits), joins the pages into the document's text with their spans, counts words and prepares the search
 * chunks. Shared by the worker (ProcessDocument) and the syllabus upload, which reads before it answers.
 * Rejects with ExtractionFailedError for a file that cannot be read.
 */
export async function readStoredDocument(
  deps: Pick<ProcessDocumentDependencies, "storage" | "scratch" | "extractor" | "prepareChunks" | "limits" | "logger">,
  document: Pick<Document, "id" | "storageKey" | "format">,
  signal?: AbortSignal,
): Promise<ReadDocument> {
  const folder = await deps.scratch.createFolder(`document-${document.id}-`);
  try {
    const path = folder.pathOf("source");
    await deps.storage.download(document.storageKey, path);
    const extracted = await deps.extractor.extract(path, document.format, {
      limits: deps.limits,
      signal,
      onProgress: (done, total) => deps.logger.info({ documentId: document.id, done, total }, "extracting pages"),
    });
    const { text, spans } = joinPages(extracted.pages);
    const pages = spans.map((span) => ({ number: span.number, text: text.slice(span.startOffset, span.endOffset), startOffset: span.startOffset }));
    const chunks = await deps.prepareChunks(pages, signal);
    return {
      result: {
        extractedText: text,
        pages: spans,
        author: extracted.author?.trim().slice(0, 255) || null,
        pageCount: extracted.pageCount,
        wordCount: countWords(text),
        calendarEventsCreated: null,
      },
      pages: pages.map(({ number, text: pageText }) => ({ number, text: pageText })),
      chunks,
    };
  } finally {
    await folder.remove().catch((error: unknown) => deps.logger.warn({ err: error, folder: folder.path }, "could not remove a temporary folder"));
  }
}

/**
 * The worker's job for one `documents.document.uploaded.v1`: PENDING → PROCESSING → COMPLETED (text, metadata,
 * chunks, DocumentProcessed) or FAILED (a file that cannot be read: its reason, DocumentFailed). A redelivery of a
 * finished or deleted document is skipped; an interrupted one starts again, and fails after `maxAttempts` starts.
 * Infrastructure trouble (database, storage, embeddings) rejects, so the message is retried by the broker.
 */
export class ProcessDocument {
  constructor(private readonly deps: ProcessDocumentDependencies) {}

  async run(documentId: string, signal?: AbortSignal): Promise<"completed" | "failed" | "skipped"> {
    const { deps } = this;
    const started = await deps.documents.startProcessing(documentId);
    if (!started) return "skipped";
    const { document, attempts } = started;
    if (attempts > (deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) return this.fail(document.id, INTERRUPTED_TOO_OFTEN);
    const startedAt = Date.now();
    let read: ReadDocument;
    try {
      read = await readStoredDocument(deps, document, signal);
    } catch (error) {
      if (error instanceof ExtractionFailedError && !signal?.aborted) {
        deps.logger.warn({ documentId, format: document.format, reason: error.message }, "document extraction failed");
        return this.fail(document.id, error.message);
      }
      throw error;
    }
    const saved = await deps.documents.complete(document.id, read.result, read.chunks, (stored) => [documentProcessed(stored)]);
    if (!saved) return "skipped";
    deps.logger.info(
      {
        documentId,
        format: document.format,
        pages: read.result.pageCount,
        words: read.result.wordCount,
        chunks: read.chunks.length,
        ms: Date.now() - startedAt,
      },
      "document processed",
    );
    return "completed";
  }

  private async fail(documentId: string, message: string): Promise<"failed" | "skipped"> {
    const saved = await this.deps.documents.fail(documentId, failureReasonOf(message), (stored) => [documentFailed(stored)]);
    return saved ? "failed" : "skipped";
  }
}
