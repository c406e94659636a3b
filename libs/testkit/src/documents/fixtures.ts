/**
 * Real files of every format the documents service accepts, and hostile ones, made in code for the tests, each
 * with the text it holds so a test can assert on what extraction finds (`finds`: lower-case words or phrases
 * that extraction must yield, accents included). Imported as `@study/testkit/documents` (`import * as fixtures
 * from "@study/testkit/documents"`; `fixtures.textPdf()`, `fixtures.TEXT_PDF.pages`, …), not from the test kit's
 * main entry, which stays free of the document generators (sharp, pdfkit, docx…).
 *
 * Generation is fast (the whole set in a few seconds) and needs no Debian tool: images of text are drawn by sharp
 * from SVG (with whatever sans-serif font fontconfig finds) and "scanned" PDF pages embed such images.
 */
import { Document, HeadingLevel, Packer, Paragraph } from "docx";
import ExcelJS from "exceljs";
import PDFDocument from "pdfkit";
import PptxGenJS from "pptxgenjs";
import sharp from "sharp";
import * as XLSX from "xlsx";
import { buildPowerPoint97Presentation } from "./powerpoint97";
import { buildWord97Document } from "./word97";
import { deflatedEntry, zerosEntry, zipArchive } from "./zip";

// ---------------------------------------------------------------------------------------------------------------
// PDF

/** A PDF with a text layer, one page per entry of `pages`, with Author and Title metadata. */
export const TEXT_PDF = {
  author: "Rosalind Franklin",
  title: "Cell Biology Lecture Notes",
  pages: [
    "Chapter one: the cell membrane controls what enters and leaves the cell.",
    "Chapter two: mitochondria produce ATP through cellular respiration.",
    "Chapter three: ribosomes translate messenger RNA into proteins.",
  ],
  finds: ["mitochondria", "ribosomes"],
} as const;

export function textPdf(): Promise<Buffer> {
  return renderPdf({ info: { Author: TEXT_PDF.author, Title: TEXT_PDF.title } }, (doc) => {
    TEXT_PDF.pages.forEach((text, index) => {
      if (index > 0) doc.addPage();
      doc.fontSize(14).text(text);
    });
  });
}

/** A scanned PDF: each page is only an image of its text (no text layer), large enough for OCR. */
export const SCANNED_PDF = {
  pages: ["Photosynthesis happens in chloroplasts", "Glucose stores chemical energy"],
  finds: ["chloroplasts", "glucose"],
} as const;

export async function scannedPdf(): Promise<Buffer> {
  const scans = await Promise.all(SCANNED_PDF.pages.map((text) => scanOf(text)));
  return renderPdf({ autoFirstPage: false }, (doc) => {
    for (const scan of scans) addScannedPage(doc, scan);
  });
}

/** Page 1 has a text layer, page 2 is a scan. */
export const MIXED_PDF = {
  textPage: "Enzymes lower the activation energy of reactions.",
  scannedPage: "Proteins fold into shapes",
  finds: ["enzymes", "proteins"],
} as const;

export async function mixedPdf(): Promise<Buffer> {
  const scan = await scanOf(MIXED_PDF.scannedPage);
  return renderPdf({ autoFirstPage: false }, (doc) => {
    doc.addPage({ size: [SCAN.widthPt, SCAN.heightPt] });
    doc.fontSize(14).text(MIXED_PDF.textPage, 36, 36, { width: SCAN.widthPt - 72 });
    addScannedPage(doc, scan);
  });
}

/** A PDF that opens only with its user password (RC4/AES per pdfkit's PDF 1.7 security handler). */
export const ENCRYPTED_PDF = { password: "fixture-password", text: "Confidential exam answers are locked." } as const;

export function encryptedPdf(): Promise<Buffer> {
  return renderPdf({ pdfVersion: "1.7", userPassword: ENCRYPTED_PDF.password, ownerPassword: "fixture-owner" }, (doc) => {
    doc.fontSize(14).text(ENCRYPTED_PDF.text);
  });
}

/** The text PDF cut in half: no cross-reference table, no trailer. */
export async function truncatedPdf(): Promise<Buffer> {
  const whole = await textPdf();
  return whole.subarray(0, Math.floor(whole.length / 2));
}

/** A PDF of `pageCount` tiny pages, "Page 1" … "Page N", for the page-count limit. */
export const MANY_PAGES_PDF = { pageCount: 600 } as const;

export function manyPagesPdf(pageCount: number = MANY_PAGES_PDF.pageCount): Promise<Buffer> {
  return renderPdf({ autoFirstPage: false }, (doc) => {
    for (let page = 1; page <= pageCount; page += 1) {
      doc.addPage({ size: [144, 72], margin: 8 });
      doc.fontSize(10).text(`Page ${page}`);
    }
  });
}

/** A PDF with a text layer holding `pages` (one string per page, wrapped on A5): for benchmarks of long files. */
export function pdfOfPages(pages: readonly string[]): Promise<Buffer> {
  return renderPdf({ autoFirstPage: false }, (doc) => {
    for (const text of pages) {
      doc.addPage({ size: "A5", margin: 36 });
      doc.fontSize(10).text(text);
    }
  });
}

/** A scanned PDF: each entry of `pages` (a few short lines) drawn as an image of a page, no text layer. */
export async function scannedPdfOfPages(pages: readonly string[]): Promise<Buffer> {
  const scans = await Promise.all(pages.map((text) => scanOf(text)));
  return renderPdf({ autoFirstPage: false }, (doc) => {
    for (const scan of scans) addScannedPage(doc, scan);
  });
}

/**
 * "An executable renamed .pdf": a complete x86-64 ELF executable (it runs and exits 0) padded to 1 KB — the
 * bytes say ELF whatever the name says.
 */
export function executableAsPdf(): Buffer {
  const file = Buffer.alloc(1024);
  const base = 0x400000;
  const code = Buffer.from([0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05]); // mov eax, 60 (exit); xor edi, edi; syscall
  const codeOffset = 64 + 56;
  // ELF header: magic, 64-bit, little-endian, version 1, System V ABI
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]).copy(file, 0);
  file.writeUInt16LE(2, 16); // e_type: executable
  file.writeUInt16LE(0x3e, 18); // e_machine: x86-64
  file.writeUInt32LE(1, 20); // e_version
  file.writeBigUInt64LE(BigInt(base + codeOffset), 24); // e_entry
  file.writeBigUInt64LE(64n, 32); // e_phoff: the program header follows the ELF header
  file.writeUInt16LE(64, 52); // e_ehsize
  file.writeUInt16LE(56, 54); // e_phentsize
  file.writeUInt16LE(1, 56); // e_phnum
  // Program header: one loadable, readable and executable segment mapping the whole file at `base`
  file.writeUInt32LE(1, 64); // p_type: PT_LOAD
  file.writeUInt32LE(5, 68); // p_flags: R + X
  file.writeBigUInt64LE(BigInt(base), 80); // p_vaddr
  file.writeBigUInt64LE(BigInt(base), 88); // p_paddr
  file.writeBigUInt64LE(BigInt(file.length), 96); // p_filesz
  file.writeBigUInt64LE(BigInt(file.length), 104); // p_memsz
  file.writeBigUInt64LE(0x1000n, 112); // p_align
  code.copy(file, codeOffset);
  return file;
}

// ---------------------------------------------------------------------------------------------------------------
// Word, PowerPoint, Excel

/** A DOCX with headings and paragraphs, and its core properties' creator. */
export const DOCX = {
  author: "Marie Curie",
  title: "Radioactivity Study Guide",
  blocks: [
    { heading: true, text: "Radioactivity Study Guide" },
    { heading: false, text: "Radium and polonium were discovered in 1898." },
    { heading: true, text: "Alpha decay" },
    { heading: false, text: "An alpha particle is a helium nucleus." },
    { heading: true, text: "Half-life" },
    { heading: false, text: "The half-life of carbon-14 is about 5730 years." },
  ],
  finds: ["polonium", "half-life"],
} as const;

export function docxDocument(): Promise<Buffer> {
  const document = new Document({
    creator: DOCX.author,
    title: DOCX.title,
    sections: [
      {
        children: DOCX.blocks.map((block) =>
          block.heading ? new Paragraph({ text: block.text, heading: HeadingLevel.HEADING_1 }) : new Paragraph({ text: block.text }),
        ),
      },
    ],
  });
  return Packer.toBuffer(document);
}

/** A Word 97-2003 .doc (see word97.ts for how it is built), with an accented word (Windows-1252 text). */
export const DOC = {
  paragraphs: ["Thermodynamics lecture", "Energy is conserved in an isolated system.", "Entropy never decreases: a café cools down."],
  finds: ["entropy", "café"],
} as const;

export function wordDocument(): Buffer {
  return buildWord97Document([...DOC.paragraphs]);
}

/** A PPTX of three slides (title, bullet points) with speaker notes, and its author. */
export const PPTX = {
  author: "Gregor Mendel",
  slides: [
    { title: "Mendelian genetics", body: ["Dominant and recessive alleles", "Punnett squares"], notes: "Start with the pea plant experiments." },
    { title: "Law of segregation", body: ["Each parent passes one allele"], notes: "Remind students about meiosis." },
    {
      title: "Law of independent assortment",
      body: ["Genes on different chromosomes sort independently"],
      notes: "Quiz next week on dihybrid crosses.",
    },
  ],
  finds: ["punnett", "pea plant"], // the second is in the speaker notes only
} as const;

export async function pptxPresentation(): Promise<Buffer> {
  const presentation = new PptxGenJS();
  presentation.author = PPTX.author;
  presentation.title = PPTX.slides[0].title;
  for (const content of PPTX.slides) {
    const slide = presentation.addSlide();
    slide.addText(content.title, { x: 0.5, y: 0.3, w: 9, h: 1, fontSize: 32, bold: true });
    slide.addText(
      content.body.map((line) => ({ text: line, options: { bullet: true, breakLine: true } })),
      { x: 0.5, y: 1.5, w: 9, h: 3, fontSize: 20 },
    );
    slide.addNotes(content.notes);
  }
  const output = await presentation.write({ outputType: "nodebuffer" });
  if (!Buffer.isBuffer(output)) throw new Error("pptxgenjs did not return a Buffer");
  return output;
}

/** A PowerPoint 97-2003 .ppt (see powerpoint97.ts): slide text only, no notes. */
export const PPT = {
  slides: [
    { title: "Plate tectonics", body: ["The lithosphere is broken into plates", "Plates move a few centimetres a year"] },
    { title: "Earthquakes", body: ["Most occur at plate boundaries"] },
  ],
  finds: ["lithosphere", "earthquakes"],
} as const;

export function pptPresentation(): Buffer {
  return buildPowerPoint97Presentation(PPT.slides.map((slide) => ({ title: slide.title, body: [...slide.body] })));
}

/** Sheets of the spreadsheet fixtures: a header row, then data (strings and numbers). */
export interface SheetFixture {
  name: string;
  rows: (string | number)[][];
}

/** An XLSX of two sheets, with the workbook's creator. */
export const XLSX_WORKBOOK: { creator: string; sheets: SheetFixture[]; finds: string[] } = {
  creator: "Florence Nightingale",
  finds: ["statistics homework", "probability distributions"],
  sheets: [
    {
      name: "Grades",
      rows: [
        ["Student", "Assignment", "Score"],
        ["Amina", "Statistics homework", 92],
        ["Bruno", "Statistics homework", 85],
      ],
    },
    {
      name: "Schedule",
      rows: [
        ["Week", "Topic"],
        [1, "Descriptive statistics"],
        [2, "Probability distributions"],
      ],
    },
  ],
};

export async function xlsxWorkbook(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = XLSX_WORKBOOK.creator;
  for (const sheet of XLSX_WORKBOOK.sheets) workbook.addWorksheet(sheet.name).addRows(sheet.rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** An XLS (BIFF8, Excel 97-2003) of two sheets, written by SheetJS, with its author. */
export const XLS_WORKBOOK: { author: string; sheets: SheetFixture[]; finds: string[] } = {
  author: "Charles Darwin",
  finds: ["woodpecker finch", "floreana"],
  sheets: [
    {
      name: "Species",
      rows: [
        ["Island", "Finch", "Beak"],
        ["Floreana", "Medium ground finch", "Crushing"],
        ["Santa Cruz", "Woodpecker finch", "Probing"],
      ],
    },
    {
      name: "Counts",
      rows: [
        ["Year", "Observed"],
        [1835, 13],
        [1836, 7],
      ],
    },
  ],
};

export function xlsWorkbook(): Buffer {
  const workbook = XLSX.utils.book_new();
  workbook.Props = { Author: XLS_WORKBOOK.author };
  for (const sheet of XLS_WORKBOOK.sheets) XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(sheet.rows), sheet.name);
  const output: unknown = XLSX.write(workbook, { type: "buffer", bookType: "biff8" });
  if (!Buffer.isBuffer(output)) throw new Error("SheetJS did not return a Buffer");
  return output;
}

// ---------------------------------------------------------------------------------------------------------------
// Text formats

/** A CSV with a header row and quoted fields holding commas and a doubled quote. */
export const CSV = {
  rows: [
    ["Student", "Topic", "Score", "Comment"],
    ["Nguyen, An", "Photosynthesis", "91", "Clear, well argued"],
    ["Okafor, Chidi", "Cell division", "87", "Needs diagrams"],
    ["Rossi, Giulia", "Genetics, heredity", "78", 'Good "Punnett" squares'],
  ],
  text: [
    "Student,Topic,Score,Comment",
    '"Nguyen, An",Photosynthesis,91,"Clear, well argued"',
    '"Okafor, Chidi",Cell division,87,Needs diagrams',
    '"Rossi, Giulia","Genetics, heredity",78,"Good ""Punnett"" squares"',
    "",
  ].join("\r\n"),
  finds: ["nguyen, an", "punnett"],
} as const;

export const csvFile = (): Buffer => Buffer.from(CSV.text, "utf8");

/** A hand-written RTF with an author, a bold heading and an escaped accented character (\'e9). */
export const RTF = {
  author: "Dorothy Hodgkin",
  title: "Organic Chemistry Summary",
  paragraphs: ["Organic Chemistry Summary", "Carbon forms four covalent bonds.", "Benzene is an aromatic ring.", "Café au lait is a mixture."],
  source: [
    "{\\rtf1\\ansi\\ansicpg1252\\deff0",
    "{\\fonttbl{\\f0\\fswiss Helvetica;}}",
    "{\\info{\\title Organic Chemistry Summary}{\\author Dorothy Hodgkin}}",
    "\\f0\\fs28{\\b Organic Chemistry Summary}\\par",
    "\\fs24 Carbon forms four covalent bonds.\\par",
    "Benzene is an aromatic ring.\\par",
    "Caf\\'e9 au lait is a mixture.\\par",
    "}",
    "",
  ].join("\n"),
  finds: ["benzene", "covalent", "café"],
} as const;

export const rtfDocument = (): Buffer => Buffer.from(RTF.source, "latin1");

/** Markdown: headings, a list, a link, a code fence. */
export const MARKDOWN = {
  headings: ["Study guide: the water cycle", "Stages", "Further reading"],
  text: [
    "# Study guide: the water cycle",
    "",
    "Water moves between the oceans, the air and the land.",
    "",
    "## Stages",
    "",
    "- Evaporation turns water into vapour",
    "- Condensation forms clouds",
    "- Precipitation returns water to the surface",
    "",
    "## Further reading",
    "",
    "See [the USGS page](https://www.usgs.gov/water-cycle) for diagrams.",
    "",
    "```",
    "runoff = precipitation - evaporation - infiltration",
    "```",
    "",
  ].join("\n"),
  finds: ["evaporation", "condensation", "water cycle"],
} as const;

export const markdownFile = (): Buffer => Buffer.from(MARKDOWN.text, "utf8");

/** Plain UTF-8 text with non-ASCII characters (an em dash, a diaeresis, a Greek letter). */
export const UTF8_TEXT = {
  text: [
    "Lecture summary — thermodynamics",
    "The naïve view treats heat as a fluid.",
    "Efficiency η of a heat engine is below the Carnot limit",
    "Next lecture covers entropy and the second law.",
    "",
  ].join("\n"),
  finds: ["naïve", "carnot"],
} as const;

export const utf8TextFile = (): Buffer => Buffer.from(UTF8_TEXT.text, "utf8");

/**
 * Plain text in Windows-1252 (Latin-1 for these characters): é, ü, à, ç, ö as single bytes — invalid UTF-8, so
 * the reader must detect the 8-bit encoding.
 */
export const LATIN1_TEXT = {
  encoding: "windows-1252",
  text: [
    "Résumé du cours de chimie organique.",
    "Müller a présenté les expériences à la faculté.",
    "La réaction a été déclenchée par la chaleur; le garçon a noté les résultats.",
    "Les élèves étudient la théorie de Schrödinger après le déjeuner.",
    "",
  ].join("\n"),
  finds: ["résumé", "müller", "schrödinger"],
} as const;

export const latin1TextFile = (): Buffer => Buffer.from(LATIN1_TEXT.text, "latin1");

// ---------------------------------------------------------------------------------------------------------------
// Images of text

/** The text drawn on every image fixture: large black text on white, readable by Tesseract. */
export const IMAGE_TEXT = { lines: ["Cells need energy", "from glucose"], finds: ["energy", "glucose"] } as const;

export type ImageFixtureFormat = "png" | "jpeg" | "webp" | "gif";

export async function textImage(format: ImageFixtureFormat): Promise<Buffer> {
  const image = sharp(textSvg(IMAGE_TEXT.lines, 900)).flatten({ background: "#ffffff" });
  switch (format) {
    case "png":
      return image.png().toBuffer();
    case "jpeg":
      return image.jpeg({ quality: 90 }).toBuffer();
    case "webp":
      return image.webp({ quality: 90 }).toBuffer();
    case "gif":
      return image.gif().toBuffer();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Hostile and unaccepted files

/**
 * A zip bomb disguised as a DOCX: a valid [Content_Types].xml and _rels/.rels, then word/document.xml whose
 * declared and real uncompressed size is `uncompressedSize` zero bytes (1 GiB by default; about 1 MB on disk).
 * Built without holding the inflated bytes (see zerosEntry).
 */
export const ZIP_BOMB_DOCX = { uncompressedSize: 1024 ** 3 } as const;

export function zipBombDocx(uncompressedSize: number = ZIP_BOMB_DOCX.uncompressedSize): Buffer {
  return zipArchive([
    deflatedEntry("[Content_Types].xml", DOCX_CONTENT_TYPES),
    deflatedEntry("_rels/.rels", DOCX_RELATIONSHIPS),
    zerosEntry("word/document.xml", uncompressedSize),
  ]);
}

/** A zip archive that is not an office file (a text file and a folder). */
export const PLAIN_ZIP = {
  entries: { "notes.txt": "Bring a calculator to the exam.\n", "slides/readme.md": "# Slides\n\nNothing here yet.\n" },
} as const;

export function plainZip(): Buffer {
  return zipArchive(Object.entries(PLAIN_ZIP.entries).map(([name, content]) => deflatedEntry(name, content)));
}

export const emptyFile = (): Buffer => Buffer.alloc(0);

/** Random-looking bytes (a fixed xorshift sequence: the same junk every run). */
export function randomJunk(size = 4096, seed = 0x2545f491): Buffer {
  const junk = Buffer.alloc(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 1) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    junk[i] = state & 0xff;
  }
  return junk;
}

// ---------------------------------------------------------------------------------------------------------------
// Catalogue

/** The documents service's format names (its DocumentFormat). */
export type FixtureFormat = "PDF" | "DOC" | "DOCX" | "PPT" | "PPTX" | "XLS" | "XLSX" | "CSV" | "TXT" | "MD" | "RTF" | "JPEG" | "PNG" | "GIF" | "WEBP";

/** A fixture file: a usual name, the format its bytes are, how to build it. */
export interface FixtureFile {
  fileName: string;
  format: FixtureFormat;
  build: () => Buffer | Promise<Buffer>;
}

/** One fixture per accepted format (two for PDF and TXT), for tests that go through every format. */
export const ACCEPTED_FIXTURES: readonly FixtureFile[] = [
  { fileName: "lecture-notes.pdf", format: "PDF", build: textPdf },
  { fileName: "scanned-notes.pdf", format: "PDF", build: scannedPdf },
  { fileName: "radioactivity.docx", format: "DOCX", build: docxDocument },
  { fileName: "thermodynamics.doc", format: "DOC", build: wordDocument },
  { fileName: "genetics.pptx", format: "PPTX", build: pptxPresentation },
  { fileName: "tectonics.ppt", format: "PPT", build: pptPresentation },
  { fileName: "grades.xlsx", format: "XLSX", build: xlsxWorkbook },
  { fileName: "finches.xls", format: "XLS", build: xlsWorkbook },
  { fileName: "scores.csv", format: "CSV", build: csvFile },
  { fileName: "chemistry.rtf", format: "RTF", build: rtfDocument },
  { fileName: "water-cycle.md", format: "MD", build: markdownFile },
  { fileName: "summary.txt", format: "TXT", build: utf8TextFile },
  { fileName: "resume-latin1.txt", format: "TXT", build: latin1TextFile },
  { fileName: "cells.png", format: "PNG", build: () => textImage("png") },
  { fileName: "cells.jpg", format: "JPEG", build: () => textImage("jpeg") },
  { fileName: "cells.webp", format: "WEBP", build: () => textImage("webp") },
  { fileName: "cells.gif", format: "GIF", build: () => textImage("gif") },
];

// ---------------------------------------------------------------------------------------------------------------
// Helpers

/** Runs pdfkit and collects the document's bytes. */
function renderPdf(options: PDFKit.PDFDocumentOptions, draw: (doc: PDFKit.PDFDocument) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: "A5", ...options });
    const chunks: Buffer[] = [];
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
    draw(doc);
    doc.end();
  });
}

/** A scanned page: 1200 x 600 px drawn on a page of 576 x 288 pt, i.e. scanned at 150 dpi. */
const SCAN = { widthPx: 1200, heightPx: 600, widthPt: 576, heightPt: 288 } as const;

/** The "scan" of a text: the text drawn large on white, wrapped to fit, as a JPEG like a scanner makes. */
function scanOf(text: string): Promise<Buffer> {
  return sharp(textSvg(wrap(text, 24), SCAN.widthPx, SCAN.heightPx))
    .flatten({ background: "#ffffff" })
    .jpeg({ quality: 90 })
    .toBuffer();
}

function addScannedPage(doc: PDFKit.PDFDocument, scan: Buffer): void {
  doc.addPage({ size: [SCAN.widthPt, SCAN.heightPt], margin: 0 });
  doc.image(scan, 0, 0, { width: SCAN.widthPt, height: SCAN.heightPt });
}

const FONT_SIZE_PX = 64;
const LINE_HEIGHT_PX = 96;

/** SVG of black text lines on white, left-aligned with a margin. */
function textSvg(lines: readonly string[], width: number, height = 2 * 48 + lines.length * LINE_HEIGHT_PX): Buffer {
  const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const texts = lines.map(
    (line, index) =>
      `<text x="48" y="${48 + FONT_SIZE_PX + index * LINE_HEIGHT_PX}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" ` +
      `font-size="${FONT_SIZE_PX}" fill="#000000">${escape(line)}</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#ffffff"/>${texts.join("")}</svg>`;
  return Buffer.from(svg, "utf8");
}

/** Greedy word wrap to lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/)) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] = `${lines[last]} ${word}`;
    else lines.push(word);
  }
  return lines;
}

const DOCX_CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
  "</Types>";

const DOCX_RELATIONSHIPS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
  "</Relationships>";

export { deflatedEntry, zerosEntry, zipArchive, type ZipEntry } from "./zip";
