import type { DocumentFormat } from "../../domain/document-format";

/** One page of extracted text: a PDF page, a slide, a sheet, or the whole of a text file (page 1). */
export interface ExtractedPage {
  /** 1-based. */
  number: number;
  text: string;
  /** True when the text came from OCR (a scanned page or an image). */
  ocr: boolean;
}

export interface ExtractedDocument {
  pages: ExtractedPage[];
  /** From the file's metadata when it has one (PDF Author, docx/pptx/xlsx core properties, doc/xls summary). */
  author: string | null;
  /** Pages, slides or sheets in the file (may exceed `pages.length` when empty pages are skipped). */
  pageCount: number;
}

/** Bounds on one extraction: a hostile file fails with a clear message instead of exhausting the worker. */
export interface ExtractionLimits {
  /** Whole extraction, tools and OCR included. */
  timeoutMs: number;
  /** Pages (slides, sheets) read; a longer file fails. */
  maxPages: number;
  /** Bytes a zip-based file (docx, pptx, xlsx) may inflate to, in total. */
  maxInflatedBytes: number;
  /** Characters of text kept; a longer text fails (a document that large is not study material). */
  maxTextChars: number;
}

/** A file that cannot be read: `message` is shown to the user as the document's failure reason. */
export class ExtractionFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ExtractionFailedError";
  }
}

export interface ExtractionProgress {
  /** Pages done so far and the total, when known. */
  (done: number, total: number): void;
}

/** Reads the text of a local file of a known format (decided by the FormatDetector at upload). */
export interface TextExtractor {
  /**
   * Rejects with ExtractionFailedError for a file it cannot read (encrypted, truncated, not what its format
   * says, over a limit, over time); with `signal`'s reason when aborted. Child processes never outlive it.
   */
  extract(
    filePath: string,
    format: DocumentFormat,
    options: { limits: ExtractionLimits; signal?: AbortSignal; onProgress?: ExtractionProgress },
  ): Promise<ExtractedDocument>;
}
