import { mkdtemp, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { ExternalToolError } from "@study/platform/run-tool";
import { ExtractionFailedError, type ExtractedPage } from "../../application/ports/text-extractor.port";
import { tooManyPages, type ExtractionContext, type FormatReader } from "./extraction-context";
import { ocrImage } from "./ocr";

/** What `pdfinfo` says of a PDF. */
interface PdfInfo {
  pageCount: number;
  author: string | null;
  /** Page number → width × height in points (1/72 inch), to bound the pixels of a rendered page. */
  pageSizes: Map<number, { width: number; height: number }>;
}

/**
 * A PDF: `pdfinfo` first (a password-protected, truncated or fake PDF fails here, and a page count over the
 * limit fails before any text is read), then the whole text layer in one `pdftotext -layout` call (pages end
 * with a form feed), then OCR of every page whose layer is (nearly) empty: `pdftoppm` renders it, `tesseract`
 * reads it. A PDF encrypted with an owner password only (restrictions, no password to open) is read: poppler
 * opens it as any viewer does.
 */
export const readPdf: FormatReader = async (context) => {
  const info = await pdfInfo(context);
  if (info.pageCount > context.limits.maxPages) throw tooManyPages(info.pageCount, context.limits);
  const layer = await context.run(context.settings.tools.pdftotext, [
    "-layout",
    "-enc",
    "UTF-8",
    "-f",
    "1",
    "-l",
    String(info.pageCount),
    context.filePath,
    "-",
  ]);
  // Every page ends with a form feed: the piece after the last one is empty.
  const texts = layer.split("\f").slice(0, info.pageCount);
  const pages: ExtractedPage[] = [];
  let scratch: string | undefined;
  try {
    for (let index = 0; index < info.pageCount; index++) {
      const number = index + 1;
      const text = texts[index] ?? "";
      if (nonBlankLength(text) >= context.settings.ocrBelowCharacters) {
        pages.push({ number, text, ocr: false });
      } else {
        scratch ??= await mkdtemp(join(context.settings.temporaryDirectory, "pdf-ocr-"));
        const recognised = await ocrPage(context, info, number, scratch);
        // A page with a few words of text over a picture: the longer reading wins.
        pages.push(nonBlankLength(recognised) > nonBlankLength(text) ? { number, text: recognised, ocr: true } : { number, text, ocr: false });
      }
      context.onProgress?.(number, info.pageCount);
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
  return { pages, author: info.author, pageCount: info.pageCount };
};

const nonBlankLength = (text: string) => text.replace(/\s+/g, "").length;

async function pdfInfo(context: ExtractionContext): Promise<PdfInfo> {
  const head = Buffer.alloc(1024);
  const file = await open(context.filePath, "r");
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  // poppler reads almost anything "continuing anyway": a file without the header is not a PDF at all.
  if (!head.includes("%PDF-")) throw new ExtractionFailedError("The file is not a PDF (it has no PDF header)");
  let output: string;
  try {
    // -l: the size of every page up to the limit (a longer PDF fails on its page count anyway).
    output = await context.run(context.settings.tools.pdfinfo, [
      "-enc",
      "UTF-8",
      "-l",
      String(Math.max(1, context.limits.maxPages)),
      context.filePath,
    ]);
  } catch (error) {
    if (error instanceof ExtractionFailedError && !context.signal.aborted) throw explainPdfFailure(error);
    throw error;
  }
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "m").exec(output)?.[1]?.trim();
  const pageCount = Number(field("Pages"));
  if (!Number.isInteger(pageCount) || pageCount < 0) throw new ExtractionFailedError("The PDF file could not be read (no page count)");
  const pageSizes = new Map<number, { width: number; height: number }>();
  for (const size of output.matchAll(/^Page\s+(\d+)\s+size:\s*([\d.]+) x ([\d.]+)/gm)) {
    pageSizes.set(Number(size[1]), { width: Number(size[2]), height: Number(size[3]) });
  }
  return { pageCount, author: field("Author") || null, pageSizes };
}

/** poppler's messages in words a user understands, its last line quoted. */
function explainPdfFailure(error: ExtractionFailedError): ExtractionFailedError {
  const stderr = error.cause instanceof ExternalToolError ? error.cause.stderrTail : [];
  if (stderr.some((line) => /Incorrect password/i.test(line))) {
    return new ExtractionFailedError("The PDF is password-protected", { cause: error });
  }
  const last = (stderr.at(-1) ?? "").replace(/^Syntax (Error|Warning)(\s*\(\d+\))?:\s*/, "");
  return new ExtractionFailedError(`The PDF is damaged or truncated${last ? ` (poppler: ${last})` : ""}`, { cause: error });
}

/** Renders one page in gray at the OCR resolution and reads it. */
async function ocrPage(context: ExtractionContext, info: PdfInfo, page: number, scratch: string): Promise<string> {
  const { ocrDpi, maxImagePixels } = context.settings;
  const size = info.pageSizes.get(page) ?? { width: 0, height: 0 };
  const pixels = (size.width * ocrDpi * size.height * ocrDpi) / (72 * 72);
  if (pixels > maxImagePixels) {
    throw new ExtractionFailedError(
      `Page ${page} of the PDF is too large to be read by OCR (${Math.round(pixels / 1e6)} megapixels at ${ocrDpi} dpi)`,
    );
  }
  const prefix = join(scratch, `page-${page}`);
  await context.run(context.settings.tools.pdftoppm, [
    "-f",
    String(page),
    "-l",
    String(page),
    "-r",
    String(ocrDpi),
    "-gray",
    "-png",
    "-singlefile",
    context.filePath,
    prefix,
  ]);
  try {
    return await ocrImage(context, `${prefix}.png`);
  } finally {
    await rm(`${prefix}.png`, { force: true });
  }
}
