import { tmpdir } from "node:os";
import { isImageFormat, type DocumentFormat } from "../../domain/document-format";
import {
  ExtractionFailedError,
  type ExtractedDocument,
  type ExtractedPage,
  type ExtractionLimits,
  type ExtractionProgress,
  type TextExtractor,
} from "../../application/ports/text-extractor.port";
import { createRun, textTooLong, tooManyPages, type FormatReader, type TextExtractorSettings } from "./extraction-context";
import { readDoc, readPpt, readXls } from "./legacy-office";
import { readImage } from "./ocr";
import { readDocx, readPptx, readXlsx } from "./ooxml";
import { readPdf } from "./pdf";
import { readCsv, readPlainText, readRtf } from "./text-files";

export type { TextExtractorSettings } from "./extraction-context";

export const DEFAULT_TEXT_EXTRACTOR_SETTINGS: TextExtractorSettings = {
  ocrLanguage: "eng",
  ocrDpi: 200,
  ocrBelowCharacters: 20,
  maxImagePixels: 100_000_000,
  temporaryDirectory: tmpdir(),
  tools: {
    pdfinfo: "pdfinfo",
    pdftotext: "pdftotext",
    pdftoppm: "pdftoppm",
    tesseract: "tesseract",
    antiword: "antiword",
    catdoc: "catdoc",
    catppt: "catppt",
    xls2csv: "xls2csv",
    unrtf: "unrtf",
  },
};

const READERS: Record<DocumentFormat, FormatReader> = {
  PDF: readPdf,
  DOCX: readDocx,
  DOC: readDoc,
  PPTX: readPptx,
  PPT: readPpt,
  XLSX: readXlsx,
  XLS: readXls,
  CSV: readCsv,
  TXT: readPlainText,
  MD: readPlainText,
  RTF: readRtf,
  JPEG: readImage,
  PNG: readImage,
  GIF: readImage,
  WEBP: readImage,
};

/**
 * Extracts text with Debian's tools (poppler, tesseract, antiword, catdoc, unrtf) in child processes and the JS
 * parsers (mammoth, exceljs, jszip, csv-parse) in this process. Hostile files: every tool runs without a shell
 * and is SIGKILLed when the extraction's time runs out or the caller aborts; tools' output is capped; zip-based
 * files are checked for bombs before a parser opens them; page and text limits fail the extraction.
 */
export class ToolTextExtractor implements TextExtractor {
  constructor(private readonly settings: TextExtractorSettings) {}

  async extract(
    filePath: string,
    format: DocumentFormat,
    options: { limits: ExtractionLimits; signal?: AbortSignal; onProgress?: ExtractionProgress },
  ): Promise<ExtractedDocument> {
    const { limits, onProgress } = options;
    options.signal?.throwIfAborted();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new ExtractionFailedError(`Reading the document took longer than the limit of ${formatDuration(limits.timeoutMs)}`)),
      limits.timeoutMs,
    );
    const forwardAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const base = {
        filePath,
        format,
        label: isImageFormat(format) ? "image" : format,
        limits,
        signal: controller.signal,
        settings: this.settings,
        onProgress,
      };
      const extracted = await READERS[format]({ ...base, run: createRun(base) });
      controller.signal.throwIfAborted();
      const result = finish(extracted, limits);
      if (format !== "PDF") onProgress?.(result.pageCount, result.pageCount);
      return result;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", forwardAbort);
    }
  }
}

/** Settings that differ from the defaults (Debian's tools on PATH, English OCR at 200 dpi, the OS's temporary folder). */
export type TextExtractorOverrides = Partial<Omit<TextExtractorSettings, "tools">> & { tools?: Partial<TextExtractorSettings["tools"]> };

export const createTextExtractor = (settings: TextExtractorOverrides = {}): TextExtractor =>
  new ToolTextExtractor({ ...DEFAULT_TEXT_EXTRACTOR_SETTINGS, ...settings, tools: { ...DEFAULT_TEXT_EXTRACTOR_SETTINGS.tools, ...settings.tools } });

/**
 * Tidies every page (line ends, trailing blanks, NULs, blank lines at its edges), applies the page and text
 * limits, and keeps only pages with text: a document without any text at all is one empty page 1 (the caller
 * decides what an empty document means).
 */
function finish(extracted: ExtractedDocument, limits: ExtractionLimits): ExtractedDocument {
  if (extracted.pageCount > limits.maxPages) throw tooManyPages(extracted.pageCount, limits);
  const pages: ExtractedPage[] = [];
  let characters = 0;
  for (const page of extracted.pages) {
    const text = tidy(page.text);
    characters += text.length;
    if (characters > limits.maxTextChars) throw textTooLong(limits);
    if (text) pages.push({ ...page, text });
  }
  const author = extracted.author?.trim() || null;
  return { pages: pages.length ? pages : [{ number: 1, text: "", ocr: extracted.pages[0]?.ocr ?? false }], author, pageCount: extracted.pageCount };
}

// eslint-disable-next-line no-control-regex -- NUL and the C0 controls other than tab and line feed are not text
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(CONTROL_CHARACTERS, "")
    .replace(/[ \t\u00a0]+$/gm, "")
    .replace(/^\n+|\n+$/g, "");
}

const formatDuration = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);
