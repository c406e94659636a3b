import { readFile, stat } from "node:fs/promises";
import chardet from "chardet";
import { parse } from "csv-parse/sync";
import iconv from "iconv-lite";
import { textTooLong, type ExtractionContext, type FormatReader } from "./extraction-context";
import { rowLine } from "./rows";

/**
 * A text file's characters: a byte-order mark decides (UTF-8, UTF-16 LE/BE, removed), else valid UTF-8 is
 * UTF-8 (ASCII included), else chardet's guess (windows-1252, ISO-8859-x, Shift_JIS…), else windows-1252.
 * A file that cannot hold fewer characters than the limit is refused before it is read.
 */
export async function readTextFile(context: ExtractionContext): Promise<string> {
  const { size } = await stat(context.filePath);
  // At most 4 bytes a character in any encoding read here: a larger file is surely over the limit.
  if (size > context.limits.maxTextChars * 4) throw textTooLong(context.limits);
  return decodeText(await readFile(context.filePath));
}

export function decodeText(bytes: Buffer): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.toString("utf8", 3);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return iconv.decode(bytes.subarray(2), "utf-16le");
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return iconv.decode(bytes.subarray(2), "utf-16be");
  const utf8 = strictUtf8(bytes);
  if (utf8 !== undefined) return utf8;
  const guess = chardet.detect(bytes);
  return iconv.decode(bytes, guess && guess !== "UTF-8" && iconv.encodingExists(guess) ? guess : "windows-1252");
}

/** The bytes as UTF-8, or undefined when they are not valid UTF-8 (an 8-bit or legacy encoding). */
function strictUtf8(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** TXT and MD: the text as it is (Markdown is readable as text), one page. */
export const readPlainText: FormatReader = async (context) => ({
  pages: [{ number: 1, text: await readTextFile(context), ocr: false }],
  author: null,
  pageCount: 1,
});

/** Delimiters a CSV may use; the one most frequent on the first line wins. */
const CSV_DELIMITERS = [",", ";", "\t", "|"];

/**
 * CSV: one page, a line per non-empty row (the header row included), cells joined by " | ". A file csv-parse
 * rejects (an unclosed quote) is still text: it is kept as it is rather than failed.
 */
export const readCsv: FormatReader = async (context) => {
  const text = await readTextFile(context);
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  const delimiter = CSV_DELIMITERS.map((candidate) => ({ candidate, count: firstLine.split(candidate).length })).sort((a, b) => b.count - a.count)[0]
    ?.candidate;
  let rendered: string;
  try {
    const rows: string[][] = parse(text, { delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true });
    rendered = rows.map(rowLine).filter(Boolean).join("\n");
  } catch {
    // Malformed CSV is still readable text: kept as it is.
    rendered = text;
  }
  return { pages: [{ number: 1, text: rendered, ocr: false }], author: null, pageCount: 1 };
};

const HTML_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
  ndash: "–",
  mdash: "—",
  bull: "•",
  hellip: "…",
  euro: "€",
  trade: "™",
  copy: "©",
  reg: "®",
};
/** HTML's names for the Latin-1 characters 161-255, in order. */
const LATIN1_ENTITY_NAMES =
  "iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml".split(
    " ",
  );
LATIN1_ENTITY_NAMES.forEach((name, index) => (HTML_ENTITIES[name] ??= String.fromCharCode(161 + index)));

function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z][a-zA-Z0-9]*);/g, (whole, name: string) => {
    if (name.startsWith("#")) {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    return HTML_ENTITIES[name] ?? whole;
  });
}

/**
 * RTF: `unrtf --html` (its text mode drops Unicode characters and prints the code page's bytes; its HTML mode
 * writes every character as an entity and a page break as a rule), turned back into text here: pages split at
 * the page breaks, the author from its `<meta name="author">`.
 */
export const readRtf: FormatReader = async (context) => {
  const html = await context.run(context.settings.tools.unrtf, ["--html", "--nopict", context.filePath]);
  const author = /<meta name="author" content="([^"]*)"/i.exec(html)?.[1];
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? "";
  const text = decodeHtmlEntities(
    body
      .replace(/<!--[\s\S]*?-->/g, "")
      .replace(/<hr\s*\/?>/gi, "\f")
      .replace(/<br\s*\/?>|<\/p>|<\/li>|<\/tr>|<\/h\d>|<\/div>/gi, "\n")
      .replace(/<\/td>/gi, " | ")
      .replace(/<[^>]*>/g, "")
      // unrtf ends a line with the tag's newline too, and a page break comes wrapped in paragraph tags.
      .replace(/\n{2,}/g, "\n")
      .replace(/\n*\f\n*/g, "\f"),
  );
  const pages = text.split("\f").map((page, index) => ({ number: index + 1, text: page, ocr: false }));
  return { pages, author: author ? decodeHtmlEntities(author).trim() || null : null, pageCount: pages.length };
};
