import { readFile } from "node:fs/promises";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import mammoth from "mammoth";
import { ExtractionFailedError, type ExtractedPage } from "../../application/ports/text-extractor.port";
import { tooManyPages, untilAborted, type ExtractionContext, type FormatReader } from "./extraction-context";
import { rowLine } from "./rows";
import { coreAuthor, drawingParagraphs, readPart, readRelationships, attribute } from "./xml-text";
import { checkZipInflation } from "./zip-guard";

/**
 * Reads a zip-based office file once its inflation is known to be bounded (see zip-guard), then parses it in
 * this process: mammoth, exceljs and jszip are asynchronous, so the extraction's time limit ends the wait; an
 * abandoned parse runs on to its end, which the inflation bound keeps finite (input ≤ `maxInflatedBytes`).
 */
async function boundedZip(context: ExtractionContext): Promise<Buffer> {
  const buffer = await readFile(context.filePath);
  await checkZipInflation(buffer, context.label, context.limits.maxInflatedBytes, context.signal);
  return buffer;
}

/** A parser's own error (a part missing, XML that does not parse) as the file's failure. */
async function parsing<T>(context: ExtractionContext, work: Promise<T>): Promise<T> {
  try {
    return await untilAborted(work, context.signal);
  } catch (error) {
    if (context.signal.aborted || error instanceof ExtractionFailedError || !(error instanceof Error)) throw error;
    throw new ExtractionFailedError(`The ${context.label} file could not be read (${error.message.split("\n")[0]?.slice(0, 200)})`, { cause: error });
  }
}

/**
 * DOCX: mammoth reads the document body (tables, lists, footnote references; headers and footers are not
 * body text). A docx stores no page numbers (pages are decided when Word lays it out), so a page here is what
 * lies between two explicit page breaks (`<w:br w:type="page"/>`): one page for a document without any. The
 * document tree is taken from mammoth's `transformDocument` hook, because its raw-text output drops breaks.
 */
export const readDocx: FormatReader = async (context) => {
  const buffer = await boundedZip(context);
  let tree: unknown;
  await parsing(
    context,
    mammoth.convertToHtml(
      { buffer },
      {
        externalFileAccess: false,
        // Images are not read (their bytes would only be base64-encoded into HTML nobody reads).
        convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: "" })),
        transformDocument: (document: unknown) => {
          tree = document;
          return document;
        },
      },
    ),
  );
  const texts = documentText(tree).split("\f");
  if (texts.length > context.limits.maxPages) throw tooManyPages(texts.length, context.limits);
  const author = await parsing(context, JSZip.loadAsync(buffer).then(coreAuthor));
  return { pages: texts.map((text, index) => ({ number: index + 1, text, ocr: false })), author, pageCount: texts.length };
};

/**
 * mammoth's document tree as text: a line per paragraph, tabs and line breaks kept, a table row as one line of
 * cells joined by " | ", a form feed per page break. Recursive: the tree is as deep as mammoth's own recursion made it.
 */
function documentText(node: unknown): string {
  if (!isRecord(node)) return "";
  const children = () => (Array.isArray(node.children) ? (node.children as unknown[]).map(documentText).join("") : "");
  switch (node.type) {
    case "text":
      return typeof node.value === "string" ? node.value : "";
    case "tab":
      return "\t";
    case "break":
      return node.breakType === "page" ? "\f" : "\n";
    case "paragraph":
      return `${children()}\n`;
    case "tableRow": {
      const cells = Array.isArray(node.children) ? (node.children as unknown[]) : [];
      return `${cells
        .map((cell) =>
          documentText(cell)
            .trim()
            .replace(/\s*\n\s*/g, " "),
        )
        .join(" | ")}\n`;
    }
    default:
      return children();
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * PPTX: one page per slide in the presentation's order (`presentation.xml`'s slide list, else the slide
 * numbers): the text of its shapes and tables (`<a:t>` runs, a line per paragraph), then its speaker notes
 * ("Notes: …", the notes slide's body placeholder only: not the slide-number field).
 */
export const readPptx: FormatReader = async (context) => {
  const buffer = await boundedZip(context);
  return parsing(
    context,
    (async () => {
      const zip = await JSZip.loadAsync(buffer);
      const slides = await slideOrder(zip);
      if (slides.length > context.limits.maxPages) throw tooManyPages(slides.length, context.limits);
      const pages: ExtractedPage[] = [];
      for (const [index, slidePath] of slides.entries()) {
        const slide = (await readPart(zip, slidePath)) ?? "";
        const lines = drawingParagraphs(slide);
        const notesPath = [...(await readRelationships(zip, slidePath)).values()].find((relation) => relation.type.endsWith("/notesSlide"))?.target;
        const notes = notesPath ? notesText((await readPart(zip, notesPath)) ?? "") : "";
        if (notes) lines.push(`Notes: ${notes}`);
        pages.push({ number: index + 1, text: lines.join("\n"), ocr: false });
      }
      return { pages, author: await coreAuthor(zip), pageCount: slides.length };
    })(),
  );
};

async function slideOrder(zip: JSZip): Promise<string[]> {
  const presentation = (await readPart(zip, "ppt/presentation.xml")) ?? "";
  const relationships = await readRelationships(zip, "ppt/presentation.xml");
  const listed = (presentation.match(/<p:sldId\s[^>]*>/g) ?? [])
    .map((tag) => relationships.get(attribute(tag, "r:id") ?? "")?.target)
    .filter((path): path is string => path !== undefined && zip.file(path) !== null);
  if (listed.length) return listed;
  const slideNumber = (path: string) => Number(/slide(\d+)\.xml$/.exec(path)?.[1] ?? 0);
  return Object.keys(zip.files)
    .filter((path) => /^ppt\/slides\/slide\d+\.xml$/.test(path))
    .sort((a, b) => slideNumber(a) - slideNumber(b));
}

/** The notes body of a notes slide (its shapes with a `body` placeholder). */
function notesText(xml: string): string {
  const bodies = (xml.match(/<p:sp[\s>][\s\S]*?<\/p:sp>/g) ?? []).filter((shape) => /<p:ph\s[^>]*type="body"/.test(shape));
  return bodies.flatMap(drawingParagraphs).join("\n");
}

/**
 * XLSX: one page per worksheet, "Sheet: <name>" then a line per non-empty row, its cells joined by " | " (dates
 * as ISO dates, formulas by their cached result, rich text and hyperlinks by their text).
 */
export const readXlsx: FormatReader = async (context) => {
  const buffer = await boundedZip(context);
  const workbook = new ExcelJS.Workbook();
  // exceljs's typings ask for an ArrayBuffer (a Node Buffer's memory may be a shared pool: copied out).
  const bytes = new ArrayBuffer(buffer.byteLength);
  new Uint8Array(bytes).set(buffer);
  await parsing(context, workbook.xlsx.load(bytes));
  const sheets = workbook.worksheets;
  if (sheets.length > context.limits.maxPages) throw tooManyPages(sheets.length, context.limits);
  const pages = sheets.map((sheet, index) => {
    const lines = [`Sheet: ${sheet.name}`];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      const line = rowLine(values.map(cellText));
      if (line) lines.push(line);
    });
    return { number: index + 1, text: lines.join("\n"), ocr: false };
  });
  return { pages, author: workbook.creator?.trim() || null, pageCount: sheets.length };
};

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.slice(0, 16).replace("T", " ");
  }
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (!isRecord(value)) return "";
  if (Array.isArray(value.richText))
    return value.richText.map((run: unknown) => (isRecord(run) && typeof run.text === "string" ? run.text : "")).join("");
  if ("result" in value) return cellText(value.result);
  if ("text" in value) return cellText(value.text);
  if (typeof value.error === "string") return value.error;
  return "";
}
