import type { Readable } from "node:stream";
import type { DocumentFormat } from "../../domain/document-format";

/**
 * Decides a stored file's format from its bytes only: magic numbers, a zip's inner layout (docx, pptx, xlsx),
 * an OLE compound file's streams (doc, xls, ppt), and for text the encoding and shape (csv, md, txt).
 */
export interface FormatDetector {
  /**
   * `open` streams the file from its start (it may be called more than once, e.g. for a zip's directory);
   * `size` is its length in bytes. Resolves null for anything that is not an accepted format (an executable, an
   * archive that is not an office file, binary junk, an empty file); never throws for a malformed file.
   */
  detect(open: () => Promise<Readable>, size: number): Promise<DocumentFormat | null>;
}
