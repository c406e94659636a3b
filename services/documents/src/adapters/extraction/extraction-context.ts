import { basename } from "node:path";
import { ExternalToolError, runTool, type RunToolOptions } from "@study/platform/run-tool";
import type { DocumentFormat } from "../../domain/document-format";
import {
  ExtractionFailedError,
  type ExtractedDocument,
  type ExtractionLimits,
  type ExtractionProgress,
} from "../../application/ports/text-extractor.port";

/** The tools and OCR settings of the extractor (see `createTextExtractor`). */
export interface TextExtractorSettings {
  /** Tesseract's language(s), e.g. "eng" or "eng+deu" (its traineddata must be installed). */
  ocrLanguage: string;
  /** Resolution a PDF page is rendered at for OCR (200 dpi reads 10-pt print well). */
  ocrDpi: number;
  /** A PDF page whose text layer has fewer non-blank characters than this is read by OCR too. */
  ocrBelowCharacters: number;
  /** An image (or a rendered page) over this many pixels is refused: a decompression bomb for tesseract. */
  maxImagePixels: number;
  /** Folder for temporary files (rendered pages). */
  temporaryDirectory: string;
  /** Executables, by name on PATH unless given as paths. */
  tools: {
    pdfinfo: string;
    pdftotext: string;
    pdftoppm: string;
    tesseract: string;
    antiword: string;
    catdoc: string;
    catppt: string;
    xls2csv: string;
    unrtf: string;
  };
}

/** What every format reader gets for one file. */
export interface ExtractionContext {
  filePath: string;
  format: DocumentFormat;
  /** How the file is named in messages ("PDF", "DOCX"…). */
  label: string;
  limits: ExtractionLimits;
  /** Aborted by the caller or by the extraction's time limit (its reason is then an ExtractionFailedError). */
  signal: AbortSignal;
  settings: TextExtractorSettings;
  onProgress?: ExtractionProgress;
  /**
   * Runs a tool without a shell, killed with the extraction; its stdout is capped by the text limit. A tool's
   * failure becomes an ExtractionFailedError quoting its stderr (paths removed); a missing tool stays an
   * ExternalToolError (the machine's fault, not the file's).
   */
  run(tool: string, args: string[], options?: Pick<RunToolOptions, "env" | "maxStdoutBytes">): Promise<string>;
}

/** A format reader: the pages it found (empty ones included, numbered from 1), the author, the file's page count. */
export type FormatReader = (context: ExtractionContext) => Promise<ExtractedDocument>;

/**
 * stdout a tool may write per character of the text limit: `pdftotext -layout` pads columns with spaces and UTF-8
 * takes up to 4 bytes a character; the text itself is checked against the limit afterwards.
 */
const STDOUT_BYTES_PER_TEXT_CHARACTER = 8;
const MIN_STDOUT_BYTES = 1024 * 1024;

export function stdoutCap(limits: ExtractionLimits): number {
  return Math.max(MIN_STDOUT_BYTES, limits.maxTextChars * STDOUT_BYTES_PER_TEXT_CHARACTER);
}

export const textTooLong = (limits: ExtractionLimits) =>
  new ExtractionFailedError(`The document's text is longer than the limit of ${limits.maxTextChars} characters`);

export const tooManyPages = (pageCount: number, limits: ExtractionLimits) =>
  new ExtractionFailedError(`The document has ${pageCount} pages, more than the limit of ${limits.maxPages}`);

/** Removes paths from a tool's message (the file's, a rendered page's): the user sees the message, not our folders. */
export function withoutPaths(text: string, filePath: string): string {
  return text
    .split(filePath)
    .join("the file")
    .replace(/(?<![\w.])\/[\w.\-/]+/g, "the file");
}

export function createRun(context: Omit<ExtractionContext, "run">): ExtractionContext["run"] {
  return async (tool, args, options = {}) => {
    try {
      return await runTool(tool, args, {
        signal: context.signal,
        maxStdoutBytes: options.maxStdoutBytes ?? stdoutCap(context.limits),
        ...(options.env ? { env: options.env } : {}),
      });
    } catch (error) {
      if (!(error instanceof ExternalToolError) || error.failure === "not-started") throw error;
      if (error.failure === "output-too-large") throw textTooLong(context.limits);
      const quoted = withoutPaths(error.stderrTail.slice(-2).join(" | "), context.filePath);
      const status = error.exitCode === null ? "it crashed" : `exit code ${error.exitCode}`;
      throw new ExtractionFailedError(`The ${context.label} file could not be read (${basename(tool)}: ${quoted || status})`, {
        cause: error,
      });
    }
  };
}

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts (in-process parsers cannot be killed). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // eslint-disable-next-line no-restricted-syntax -- abandoned work: its outcome no longer matters to anyone
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the work's own rejection, passed on as it is
        reject(error);
      },
    );
  });
}
