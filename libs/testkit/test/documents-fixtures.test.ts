import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { createInflateRaw } from "node:zlib";
import { Readable } from "node:stream";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import mammoth from "mammoth";
import sharp from "sharp";
import { parse as parseCsv } from "csv-parse/sync";
import * as XLSX from "xlsx";
import * as fixtures from "../src/documents/fixtures";

/**
 * Each document fixture is the file it claims to be: read back with the tools the documents service uses
 * (poppler, antiword, catdoc/catppt/xls2csv, unrtf, tesseract) or the libraries that read the format.
 */

const run = promisify(execFile);
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "document-fixtures-"));
});

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** Writes the bytes to a file of the folder and returns its path. */
async function saved(name: string, bytes: Buffer): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, bytes);
  return path;
}

/** A tool's output (stdout), or its exit code and stderr when it fails. */
async function tool(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failure.code === "number" ? failure.code : -1, stdout: failure.stdout ?? "", stderr: failure.stderr ?? "" };
  }
}

const words = (text: string) => text.replace(/\s+/g, " ").trim();
const pdfText = async (path: string, page: number, password?: string) =>
  words((await tool("pdftotext", [...(password ? ["-upw", password] : []), "-f", `${page}`, "-l", `${page}`, path, "-"])).stdout);
const ocr = async (imagePath: string) => words((await tool("tesseract", [imagePath, "-"])).stdout).toLowerCase();

describe("document fixtures", () => {
  it("text PDF: three pages of text, Author and Title", async () => {
    const path = await saved("lecture.pdf", await fixtures.textPdf());
    const info = (await tool("pdfinfo", [path])).stdout;
    expect(info).toMatch(new RegExp(`Author:\\s+${fixtures.TEXT_PDF.author}`));
    expect(info).toMatch(new RegExp(`Title:\\s+${fixtures.TEXT_PDF.title}`));
    expect(info).toMatch(/Pages:\s+3\b/);
    for (const [index, text] of fixtures.TEXT_PDF.pages.entries()) expect(await pdfText(path, index + 1)).toBe(text);
  });

  it("scanned PDF: pages without a text layer that OCR reads", async () => {
    const path = await saved("scanned.pdf", await fixtures.scannedPdf());
    expect((await tool("pdfinfo", [path])).stdout).toMatch(/Pages:\s+2\b/);
    expect(await pdfText(path, 1)).toBe("");
    expect(await pdfText(path, 2)).toBe("");
    const images = (await tool("pdfimages", ["-list", path])).stdout.trim().split("\n").slice(2);
    expect(images).toHaveLength(2);
    await tool("pdftoppm", ["-r", "150", "-f", "1", "-l", "1", "-png", path, join(folder, "scan")]);
    expect(await ocr(join(folder, "scan-1.png"))).toContain(fixtures.SCANNED_PDF.pages[0].toLowerCase());
  });

  it("mixed PDF: a text page, then a scanned page", async () => {
    const path = await saved("mixed.pdf", await fixtures.mixedPdf());
    expect(await pdfText(path, 1)).toBe(fixtures.MIXED_PDF.textPage);
    expect(await pdfText(path, 2)).toBe("");
  });

  it("encrypted PDF: opens only with its password", async () => {
    const path = await saved("encrypted.pdf", await fixtures.encryptedPdf());
    const locked = await tool("pdfinfo", [path]);
    expect(locked.code).not.toBe(0);
    expect(locked.stderr).toContain("Incorrect password");
    expect((await tool("pdfinfo", ["-upw", fixtures.ENCRYPTED_PDF.password, path])).stdout).toMatch(/Encrypted:\s+yes/);
    expect(await pdfText(path, 1, fixtures.ENCRYPTED_PDF.password)).toBe(fixtures.ENCRYPTED_PDF.text);
  });

  it("truncated PDF: a PDF header whose cross-reference table is gone", async () => {
    const bytes = await fixtures.truncatedPdf();
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const info = await tool("pdfinfo", [await saved("truncated.pdf", bytes)]);
    expect(info.code).not.toBe(0);
    expect(info.stderr).toMatch(/xref|trailer/i);
  });

  it("600-page PDF", async () => {
    const path = await saved("many.pdf", await fixtures.manyPagesPdf());
    expect((await tool("pdfinfo", [path])).stdout).toMatch(/Pages:\s+600\b/);
    expect(await pdfText(path, 600)).toBe("Page 600");
  });

  it("executable renamed .pdf: an ELF executable that poppler refuses", async () => {
    const bytes = fixtures.executableAsPdf();
    expect([...bytes.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const info = await tool("pdfinfo", [await saved("program.pdf", bytes)]);
    expect(info.code).not.toBe(0);
  });

  it("DOCX: headings and paragraphs, and its creator", async () => {
    const bytes = await fixtures.docxDocument();
    const { value } = await mammoth.extractRawText({ buffer: bytes });
    for (const block of fixtures.DOCX.blocks) expect(value).toContain(block.text);
    const core = await (await JSZip.loadAsync(bytes)).file("docProps/core.xml")?.async("string");
    expect(core).toContain(`<dc:creator>${fixtures.DOCX.author}</dc:creator>`);
  });

  it("DOC: antiword and catdoc read its paragraphs", async () => {
    const path = await saved("thermodynamics.doc", fixtures.wordDocument());
    // An incomplete file made antiword read past its buffers and crash on about one run in three: run it a few times.
    const runs = await Promise.all(Array.from({ length: 8 }, () => tool("antiword", [path])));
    expect(runs.map((run) => run.code)).toEqual(runs.map(() => 0));
    const antiword = runs[0];
    const catdoc = await tool("catdoc", ["-d", "utf-8", path]);
    for (const paragraph of fixtures.DOC.paragraphs) {
      expect(words(antiword.stdout)).toContain(paragraph);
      expect(words(catdoc.stdout)).toContain(paragraph);
    }
  });

  it("PPTX: slide text and speaker notes", async () => {
    const zip = await JSZip.loadAsync(await fixtures.pptxPresentation());
    for (const [index, slide] of fixtures.PPTX.slides.entries()) {
      const slideXml = (await zip.file(`ppt/slides/slide${index + 1}.xml`)?.async("string")) ?? "";
      expect(slideXml).toContain(slide.title);
      for (const line of slide.body) expect(slideXml).toContain(line);
      expect(await zip.file(`ppt/notesSlides/notesSlide${index + 1}.xml`)?.async("string")).toContain(slide.notes);
    }
    expect(await zip.file("docProps/core.xml")?.async("string")).toContain(fixtures.PPTX.author);
  });

  it("PPT: catppt reads every slide's text", async () => {
    const output = await tool("catppt", ["-d", "utf-8", await saved("tectonics.ppt", fixtures.pptPresentation())]);
    expect(output.code).toBe(0);
    const lines = output.stdout
      .split(/[\n\f]/)
      .map((line) => line.trim())
      .filter(Boolean);
    expect(lines).toEqual(fixtures.PPT.slides.flatMap((slide) => [slide.title, ...slide.body]));
  });

  it("XLSX: two sheets and the creator", async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await fixtures.xlsxWorkbook());
    expect(workbook.creator).toBe(fixtures.XLSX_WORKBOOK.creator);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(fixtures.XLSX_WORKBOOK.sheets.map((sheet) => sheet.name));
    for (const sheet of fixtures.XLSX_WORKBOOK.sheets) {
      const rows: unknown[][] = [];
      workbook.getWorksheet(sheet.name)?.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      expect(rows).toEqual(sheet.rows);
    }
  });

  it("XLS: a BIFF8 workbook that xls2csv reads", async () => {
    const bytes = fixtures.xlsWorkbook();
    const output = await tool("xls2csv", [await saved("finches.xls", bytes)]);
    expect(output.code).toBe(0);
    const rows = output.stdout.split(/[\n\f]/).filter((line) => line.trim() !== "");
    const expected = fixtures.XLS_WORKBOOK.sheets.flatMap((sheet) => sheet.rows.map((row) => row.map((cell) => `"${cell}"`).join(",")));
    expect(rows).toEqual(expected);
    const workbook = XLSX.read(bytes);
    expect(workbook.SheetNames).toEqual(fixtures.XLS_WORKBOOK.sheets.map((sheet) => sheet.name));
    expect(workbook.Props?.Author).toBe(fixtures.XLS_WORKBOOK.author);
  });

  it("CSV: a header row and quoted fields", () => {
    expect(parseCsv(fixtures.csvFile())).toEqual(fixtures.CSV.rows);
  });

  it("RTF: unrtf reads the paragraphs, author and title", async () => {
    const output = await run("unrtf", ["--text", await saved("chemistry.rtf", fixtures.rtfDocument())], { encoding: "buffer" });
    const text = output.stdout.toString("latin1"); // unrtf writes the document's code page (1252) as is
    for (const paragraph of fixtures.RTF.paragraphs) expect(text).toContain(paragraph);
    expect(text).toContain(`AUTHOR: ${fixtures.RTF.author}`);
    expect(text).toContain(`TITLE: ${fixtures.RTF.title}`);
  });

  it("Markdown and UTF-8 text decode as UTF-8; the Latin-1 text does not, and decodes as Windows-1252", () => {
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    expect(utf8.decode(fixtures.markdownFile())).toBe(fixtures.MARKDOWN.text);
    for (const heading of fixtures.MARKDOWN.headings) expect(fixtures.MARKDOWN.text).toMatch(new RegExp(`^#+ ${heading}$`, "m"));
    expect(utf8.decode(fixtures.utf8TextFile())).toBe(fixtures.UTF8_TEXT.text);
    expect(() => utf8.decode(fixtures.latin1TextFile())).toThrow();
    expect(new TextDecoder(fixtures.LATIN1_TEXT.encoding).decode(fixtures.latin1TextFile())).toBe(fixtures.LATIN1_TEXT.text);
  });

  it("images: PNG, JPEG, WEBP and GIF of the text, which Tesseract reads", async () => {
    const formats = ["png", "jpeg", "webp", "gif"] as const;
    const images = await Promise.all(formats.map((format) => fixtures.textImage(format)));
    const metadata = await Promise.all(images.map((image) => sharp(image).metadata()));
    expect(metadata.map((m) => m.format)).toEqual(formats);
    const text = await ocr(await saved("cells.png", images[0]));
    expect(text).toBe(fixtures.IMAGE_TEXT.lines.join(" ").toLowerCase());
  });

  it("zip bomb: a DOCX layout whose document.xml declares and really inflates to its size", async () => {
    const bomb = fixtures.zipBombDocx();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const zip = await JSZip.loadAsync(bomb);
    expect(Object.keys(zip.files)).toEqual(["[Content_Types].xml", "_rels/.rels", "word/document.xml"]);
    const declared = (entry: Buffer) => localHeaders(entry).find((header) => header.name === "word/document.xml");
    expect(declared(bomb)?.uncompressedSize).toBe(fixtures.ZIP_BOMB_DOCX.uncompressedSize);

    // The same construction at 64 MiB, inflated for real (streamed, counting bytes).
    const small = fixtures.zipBombDocx(64 * 1024 * 1024);
    const entry = declared(small);
    if (!entry) throw new Error("no word/document.xml");
    let inflated = 0;
    const inflater = Readable.from([small.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize)]).pipe(createInflateRaw());
    for await (const chunk of inflater) inflated += (chunk as Buffer).length;
    expect(inflated).toBe(64 * 1024 * 1024);
  });

  it("plain zip: an archive of a text file and a folder, no office layout", async () => {
    const zip = await JSZip.loadAsync(fixtures.plainZip());
    expect(Object.keys(zip.files)).toEqual(Object.keys(fixtures.PLAIN_ZIP.entries));
    expect(await zip.file("notes.txt")?.async("string")).toBe(fixtures.PLAIN_ZIP.entries["notes.txt"]);
  });

  it("every fixture's `finds` is in its known text", () => {
    const known: [readonly string[], string[]][] = [
      [fixtures.TEXT_PDF.finds, [...fixtures.TEXT_PDF.pages]],
      [fixtures.SCANNED_PDF.finds, [...fixtures.SCANNED_PDF.pages]],
      [fixtures.MIXED_PDF.finds, [fixtures.MIXED_PDF.textPage, fixtures.MIXED_PDF.scannedPage]],
      [fixtures.DOCX.finds, fixtures.DOCX.blocks.map((block) => block.text)],
      [fixtures.DOC.finds, [...fixtures.DOC.paragraphs]],
      [fixtures.PPTX.finds, fixtures.PPTX.slides.flatMap((slide) => [slide.title, ...slide.body, slide.notes])],
      [fixtures.PPT.finds, fixtures.PPT.slides.flatMap((slide) => [slide.title, ...slide.body])],
      [fixtures.XLSX_WORKBOOK.finds, fixtures.XLSX_WORKBOOK.sheets.flatMap((sheet) => sheet.rows.flat().map(String))],
      [fixtures.XLS_WORKBOOK.finds, fixtures.XLS_WORKBOOK.sheets.flatMap((sheet) => sheet.rows.flat().map(String))],
      [fixtures.CSV.finds, fixtures.CSV.rows.flat()],
      [fixtures.RTF.finds, [...fixtures.RTF.paragraphs]],
      [fixtures.MARKDOWN.finds, [fixtures.MARKDOWN.text]],
      [fixtures.UTF8_TEXT.finds, [fixtures.UTF8_TEXT.text]],
      [fixtures.LATIN1_TEXT.finds, [fixtures.LATIN1_TEXT.text]],
      [fixtures.IMAGE_TEXT.finds, [...fixtures.IMAGE_TEXT.lines]],
    ];
    for (const [finds, texts] of known) {
      const text = texts.join("\n").toLowerCase();
      for (const find of finds) expect(text).toContain(find);
    }
  });

  it("empty file and random junk", () => {
    expect(fixtures.emptyFile()).toHaveLength(0);
    const junk = fixtures.randomJunk();
    expect(junk).toHaveLength(4096);
    expect(junk.equals(fixtures.randomJunk())).toBe(true);
    expect(junk.includes(0)).toBe(true);
  });
});

/** The local file headers of a zip: name, declared sizes, where the data starts. */
function localHeaders(zip: Buffer) {
  const headers: { name: string; compressedSize: number; uncompressedSize: number; dataOffset: number }[] = [];
  let offset = 0;
  while (offset + 30 <= zip.length && zip.readUInt32LE(offset) === 0x04034b50) {
    const compressedSize = zip.readUInt32LE(offset + 18);
    const nameLength = zip.readUInt16LE(offset + 26);
    const extraLength = zip.readUInt16LE(offset + 28);
    const name = zip.toString("utf8", offset + 30, offset + 30 + nameLength);
    const dataOffset = offset + 30 + nameLength + extraLength;
    headers.push({ name, compressedSize, uncompressedSize: zip.readUInt32LE(offset + 22), dataOffset });
    offset = dataOffset + compressedSize;
  }
  return headers;
}
