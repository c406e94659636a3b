import { readFile } from "node:fs/promises";
import * as CFB from "cfb";
import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import { ExtractionFailedError } from "../../application/ports/text-extractor.port";
import { tooManyPages, type ExtractionContext, type FormatReader } from "./extraction-context";
import { rowLine } from "./rows";

/**
 * The old binary formats (Word 97-2003 .doc, PowerPoint .ppt, Excel .xls) are OLE compound files: their text is
 * read by Debian's tools in a child process (antiword, catdoc's catppt and xls2csv), their author and sheet
 * names from the compound file's streams (cfb, in this process: it only reads the directory and two small streams).
 */

/** DOC: `antiword` (catdoc when antiword refuses the file), pages split at the document's page breaks (form feeds). */
export const readDoc: FormatReader = async (context) => {
  const file = await compoundFileOf(context, "a Word 97-2003 document", ["WordDocument"]);
  const { antiword, catdoc } = context.settings.tools;
  let text: string;
  try {
    text = await context.run(antiword, ["-m", "UTF-8.txt", "-w", "0", context.filePath]);
  } catch (error) {
    if (!(error instanceof ExtractionFailedError) || context.signal.aborted) throw error;
    // antiword reads Word 2-2003 but refuses (or crashes on) some files catdoc still reads.
    text = await context.run(catdoc, ["-d", "utf-8", "-w", context.filePath]);
  }
  const texts = text.replace(/\f\s*$/, "").split("\f");
  if (texts.length > context.limits.maxPages) throw tooManyPages(texts.length, context.limits);
  const author = summaryAuthor(file);
  return { pages: texts.map((page, index) => ({ number: index + 1, text: page, ocr: false })), author, pageCount: texts.length };
};

/** PPT: `catppt`, which ends every slide with a form feed: one page per slide. */
export const readPpt: FormatReader = async (context) => {
  const file = await compoundFileOf(context, "a PowerPoint 97-2003 presentation", ["PowerPoint Document"]);
  const text = await context.run(context.settings.tools.catppt, ["-d", "utf-8", context.filePath]);
  const texts = text.replace(/\f\s*$/, "").split("\f");
  if (texts.length > context.limits.maxPages) throw tooManyPages(texts.length, context.limits);
  const author = summaryAuthor(file);
  return { pages: texts.map((page, index) => ({ number: index + 1, text: page, ocr: false })), author, pageCount: texts.length };
};

/**
 * XLS: `xls2csv` (every cell quoted, dates as ISO dates, sheets ended by form feeds), one page per sheet:
 * "Sheet: <name>" (the names from the workbook stream) then a line per non-empty row, cells joined by " | ".
 */
export const readXls: FormatReader = async (context) => {
  const file = await compoundFileOf(context, "an Excel 97-2003 workbook", ["Workbook", "Book"]);
  const csv = await context.run(context.settings.tools.xls2csv, ["-d", "utf-8", "-q", "3", "-f", "%Y-%m-%d", context.filePath]);
  const sheets = csv.replace(/\f\s*$/, "").split("\f");
  if (sheets.length > context.limits.maxPages) throw tooManyPages(sheets.length, context.limits);
  const names = file ? sheetNames(file) : [];
  const pages = sheets.map((sheet, index) => {
    let rows: string[][];
    try {
      rows = parse(sheet, { relax_column_count: true, relax_quotes: true, skip_empty_lines: true });
    } catch (error) {
      throw new ExtractionFailedError("The XLS file could not be read (xls2csv wrote rows that do not parse)", { cause: error });
    }
    const lines = [`Sheet: ${names[index] ?? `Sheet${index + 1}`}`, ...rows.map(rowLine).filter(Boolean)];
    return { number: index + 1, text: lines.join("\n"), ocr: false };
  });
  return { pages, author: summaryAuthor(file), pageCount: sheets.length };
};

const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/**
 * Checks the file is the compound file its format says (catdoc's tools exit 0 on a file that is not: catppt and
 * xls2csv print an error and nothing else, catdoc copies any non-OLE file through) and returns its directory, or
 * undefined when cfb cannot read it (a damaged directory the tools may still read: it only costs the metadata).
 */
async function compoundFileOf(context: ExtractionContext, kind: string, streams: string[]): Promise<CFB.CFB$Container | undefined> {
  const bytes = await readFile(context.filePath);
  if (!bytes.subarray(0, OLE_SIGNATURE.length).equals(OLE_SIGNATURE)) {
    throw new ExtractionFailedError(`The file is not ${kind} (it is not an OLE compound file)`);
  }
  let file: CFB.CFB$Container;
  try {
    file = CFB.read(bytes, { type: "buffer" });
  } catch {
    // A directory cfb cannot read may still be read by the tool: only the author and sheet names are lost.
    return undefined;
  }
  if (!streams.some((stream) => CFB.find(file, stream))) {
    throw new ExtractionFailedError(`The file is not ${kind} (it has no ${streams[0]} stream)`);
  }
  return file;
}

const VT_I2 = 2;
const VT_LPSTR = 30;
const VT_LPWSTR = 31;
const PID_CODEPAGE = 1;
const PID_AUTHOR = 4;

/**
 * The Author property of the `\x05SummaryInformation` property set (MS-OLEPS): a code-page string decoded with
 * the set's own code page, or a UTF-16 string. Null when absent or malformed (every read is bounds-checked).
 */
export function summaryAuthor(file: CFB.CFB$Container | undefined): string | null {
  const entry = file && CFB.find(file, "\u0005SummaryInformation");
  if (!entry) return null;
  const stream = Buffer.from(entry.content);
  const fits = (offset: number, length: number) => offset >= 0 && offset + length <= stream.length;
  if (!fits(44, 4)) return null;
  const section = stream.readUInt32LE(44);
  if (!fits(section, 8)) return null;
  const count = Math.min(stream.readUInt32LE(section + 4), 1000);
  let codePage = 1252;
  let authorBytes: Buffer | undefined;
  let wide = false;
  for (let index = 0; index < count; index++) {
    const pair = section + 8 + index * 8;
    if (!fits(pair, 8)) return null;
    const id = stream.readUInt32LE(pair);
    const at = section + stream.readUInt32LE(pair + 4);
    if (!fits(at, 8)) continue;
    const type = stream.readUInt32LE(at);
    if (id === PID_CODEPAGE && type === VT_I2) codePage = stream.readUInt16LE(at + 4);
    if (id === PID_AUTHOR && (type === VT_LPSTR || type === VT_LPWSTR)) {
      // VT_LPSTR counts bytes, VT_LPWSTR UTF-16 characters (SheetJS writes the latter).
      const length = stream.readUInt32LE(at + 4) * (type === VT_LPWSTR ? 2 : 1);
      if (fits(at + 8, length)) authorBytes = stream.subarray(at + 8, at + 8 + length);
      wide = type === VT_LPWSTR;
    }
  }
  if (!authorBytes) return null;
  const encoding = wide || codePage === 1200 ? "utf16le" : codePage === 65001 ? "utf8" : `cp${codePage}`;
  const author = iconv
    .decode(authorBytes, iconv.encodingExists(encoding) ? encoding : "windows-1252")
    .replace(/\0[\s\S]*$/, "")
    .trim();
  return author || null;
}

const BOUNDSHEET = 0x0085;
const BOF = 0x0809;
const EOF_RECORD = 0x000a;

/** The worksheet names, in order, from the BOUNDSHEET records of the workbook globals (BIFF8, or BIFF5's 8-bit names). */
function sheetNames(file: CFB.CFB$Container): string[] {
  const entry = CFB.find(file, "Workbook") ?? CFB.find(file, "Book");
  if (!entry) return [];
  const stream = Buffer.from(entry.content);
  const names: string[] = [];
  let biff8 = true;
  for (let offset = 0; offset + 4 <= stream.length;) {
    const type = stream.readUInt16LE(offset);
    const length = stream.readUInt16LE(offset + 2);
    const body = offset + 4;
    if (body + length > stream.length) break;
    if (type === BOF && length >= 2) biff8 = stream.readUInt16LE(body) === 0x0600;
    if (type === BOUNDSHEET && length >= 8) {
      const characters = stream[body + 6] ?? 0;
      if (biff8) {
        const wide = ((stream[body + 7] ?? 0) & 1) === 1;
        const start = body + 8;
        const end = Math.min(start + characters * (wide ? 2 : 1), body + length);
        names.push(wide ? stream.toString("utf16le", start, end) : stream.toString("latin1", start, end));
      } else {
        names.push(stream.toString("latin1", body + 7, Math.min(body + 7 + characters, body + length)));
      }
    }
    // The globals end at their EOF record: the sheets' own records follow.
    if (type === EOF_RECORD) break;
    offset = body + length;
  }
  return names;
}
