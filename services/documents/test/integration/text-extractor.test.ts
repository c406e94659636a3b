/**
 * The TextExtractor adapter on real files of every accepted format and on hostile ones (the test kit's document
 * fixtures), with Debian's tools: poppler-utils, tesseract-ocr(-eng), antiword, catdoc, unrtf.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Document, Packer, PageBreak, Paragraph, TextRun } from "docx";
import sharp from "sharp";
import { ExternalToolError } from "@study/platform/run-tool";
import * as fixtures from "@study/testkit/documents";
import type { DocumentFormat } from "../../src/domain/document-format";
import { ExtractionFailedError, type ExtractedDocument, type ExtractionLimits } from "../../src/application/ports/text-extractor.port";
import { createTextExtractor } from "../../src/adapters/extraction/text-extractor";

const LIMITS: ExtractionLimits = { timeoutMs: 60_000, maxPages: 500, maxInflatedBytes: 100 * 1024 * 1024, maxTextChars: 5_000_000 };

let directory: string;
/** The extractor's own temporary folder, to see that it leaves nothing behind. */
let scratch: string;
let extractor: ReturnType<typeof createTextExtractor>;
let fileNumber = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "text-extractor-"));
  scratch = await mkdtemp(join(tmpdir(), "text-extractor-scratch-"));
  extractor = createTextExtractor({ temporaryDirectory: scratch });
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

afterEach(async () => {
  expect(await readdir(scratch)).toEqual([]);
});

async function fileOf(bytes: Buffer | Promise<Buffer>): Promise<string> {
  fileNumber += 1;
  const path = join(directory, `fixture-${fileNumber}`);
  await writeFile(path, await bytes);
  return path;
}

function extract(bytes: Buffer | Promise<Buffer>, format: DocumentFormat, limits: Partial<ExtractionLimits> = {}, signal?: AbortSignal) {
  const progress: [number, number][] = [];
  const result = fileOf(bytes).then((path) =>
    extractor.extract(path, format, { limits: { ...LIMITS, ...limits }, signal, onProgress: (done, total) => progress.push([done, total]) }),
  );
  return { result, progress };
}

const texts = (document: ExtractedDocument) => document.pages.map((page) => page.text);
/** OCR reads words, not layout: compare lower-cased with runs of blanks as one space. */
const normalised = (text: string) => text.toLowerCase().replace(/\s+/g, " ");

async function failure(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => new Error("the extraction succeeded"),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ExtractionFailedError);
  return outcome as Error;
}

/** The extractor's child processes still running (none may outlive an extraction). */
function childTools(): string[] {
  const output = execFileSync("ps", ["-o", "comm=", "--ppid", String(process.pid)], { encoding: "utf8" }).trim();
  return output
    .split("\n")
    .map((line) => line.trim())
    .filter((name) => /pdf|tesseract|antiword|catdoc|catppt|xls2csv|unrtf/.test(name));
}

describe("PDF", () => {
  it("reads the text layer page by page, with the author, the page count and progress per page", async () => {
    const { result, progress } = extract(fixtures.textPdf(), "PDF");
    const document = await result;
    expect(document.pageCount).toBe(3);
    expect(document.author).toBe(fixtures.TEXT_PDF.author);
    expect(document.pages.map((page) => page.number)).toEqual([1, 2, 3]);
    expect(document.pages.every((page) => !page.ocr)).toBe(true);
    fixtures.TEXT_PDF.pages.forEach((text, index) => expect(normalised(texts(document)[index] ?? "")).toBe(normalised(text)));
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
  });

  it("reads a scanned PDF by OCR, page by page", async () => {
    const document = await extract(fixtures.scannedPdf(), "PDF").result;
    expect(document.pageCount).toBe(2);
    expect(document.pages.map((page) => [page.number, page.ocr])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(normalised(texts(document)[0] ?? "")).toContain("photosynthesis happens in chloroplasts");
    expect(normalised(texts(document)[1] ?? "")).toContain("glucose stores chemical energy");
  });

  it("uses OCR only for the pages without a text layer", async () => {
    const document = await extract(fixtures.mixedPdf(), "PDF").result;
    expect(document.pages.map((page) => [page.number, page.ocr])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(normalised(texts(document)[0] ?? "")).toBe(normalised(fixtures.MIXED_PDF.textPage));
    expect(normalised(texts(document)[1] ?? "")).toContain("proteins fold into shapes");
  });

  it("refuses a password-protected PDF", async () => {
    expect((await failure(extract(fixtures.encryptedPdf(), "PDF").result)).message).toBe("The PDF is password-protected");
  });

  it("refuses a truncated PDF, quoting poppler briefly and without the file's path", async () => {
    const error = await failure(extract(fixtures.truncatedPdf(), "PDF").result);
    expect(error.message).toMatch(/^The PDF is damaged or truncated \(poppler: .*(xref|trailer).*\)$/);
    expect(error.message).not.toContain(directory);
  });

  it("refuses an executable named as a PDF", async () => {
    expect((await failure(extract(fixtures.executableAsPdf(), "PDF").result)).message).toBe("The file is not a PDF (it has no PDF header)");
  });

  it("refuses a PDF over the page limit before reading its text", async () => {
    const { result, progress } = extract(fixtures.manyPagesPdf(), "PDF", { maxPages: 500 });
    expect((await failure(result)).message).toBe("The document has 600 pages, more than the limit of 500");
    expect(progress).toEqual([]);
  });

  it("stops OCR at the time limit, leaving no process and no file behind", async () => {
    const started = Date.now();
    const error = await failure(extract(fixtures.scannedPdf(), "PDF", { timeoutMs: 300 }).result);
    expect(error.message).toBe("Reading the document took longer than the limit of 300 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(childTools()).toEqual([]);
  });

  it("answers an abort with the caller's reason, its tools killed", async () => {
    const controller = new AbortController();
    const reason = new Error("worker stopping");
    const { result, progress } = extract(fixtures.scannedPdf(), "PDF", {}, controller.signal);
    const aborted = result.then(
      () => undefined,
      (error: unknown) => error,
    );
    // Abort while OCR of the first page runs (a tesseract or pdftoppm child is there).
    while (childTools().length === 0 && progress.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(reason);
    expect(await aborted).toBe(reason);
    expect(childTools()).toEqual([]);
  });

  it("answers a missing tool as the machine's fault, not the file's", async () => {
    const withoutPoppler = createTextExtractor({ temporaryDirectory: scratch, tools: { pdfinfo: "no-such-pdfinfo" } });
    const path = await fileOf(fixtures.textPdf());
    const outcome = await withoutPoppler.extract(path, "PDF", { limits: LIMITS }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(ExternalToolError);
    expect(outcome).not.toBeInstanceOf(ExtractionFailedError);
    expect(outcome).toMatchObject({ message: "no-such-pdfinfo is not installed (not found on PATH)" });
  });

  it("refuses a text over the character limit", async () => {
    expect((await failure(extract(fixtures.textPdf(), "PDF", { maxTextChars: 100 }).result)).message).toBe(
      "The document's text is longer than the limit of 100 characters",
    );
  });
});

describe("Word", () => {
  it("reads a DOCX as one page without page breaks, with its author", async () => {
    const document = await extract(fixtures.docxDocument(), "DOCX").result;
    expect(document.pageCount).toBe(1);
    expect(document.author).toBe(fixtures.DOCX.author);
    expect(texts(document)).toEqual([fixtures.DOCX.blocks.map((block) => block.text).join("\n")]);
  });

  it("splits a DOCX at its explicit page breaks", async () => {
    const docx = Packer.toBuffer(
      new Document({
        creator: "Isaac Newton",
        sections: [
          {
            children: [
              new Paragraph("Week one: kinematics"),
              new Paragraph({ children: [new TextRun("Velocity is the rate of change of position."), new PageBreak()] }),
              new Paragraph("Week two: dynamics"),
            ],
          },
        ],
      }),
    );
    const document = await extract(docx, "DOCX").result;
    expect(document.pageCount).toBe(2);
    expect(texts(document)).toEqual(["Week one: kinematics\nVelocity is the rate of change of position.", "Week two: dynamics"]);
    expect(document.author).toBe("Isaac Newton");
  });

  it("reads a Word 97 DOC", async () => {
    const document = await extract(fixtures.wordDocument(), "DOC").result;
    expect(document.pageCount).toBe(1);
    expect(texts(document)).toEqual([fixtures.DOC.paragraphs.join("\n")]);
  });

  it("reads a DOC with catdoc when antiword fails on it", async () => {
    const withFailingAntiword = createTextExtractor({ temporaryDirectory: scratch, tools: { antiword: "false" } });
    const path = await fileOf(fixtures.wordDocument());
    const document = await withFailingAntiword.extract(path, "DOC", { limits: LIMITS });
    expect(texts(document)).toEqual([fixtures.DOC.paragraphs.join("\n")]);
  });
});

describe("zip bombs", () => {
  it("refuses a DOCX whose directory declares more than the inflation limit, before parsing it", async () => {
    const error = await failure(extract(fixtures.zipBombDocx(), "DOCX").result);
    expect(error.message).toBe("The DOCX file inflates to more than 100 MB (a zip bomb?): it was not read");
  });

  it("refuses an absurd compression ratio under the limit", async () => {
    const error = await failure(extract(fixtures.zipBombDocx(50 * 1024 * 1024), "DOCX").result);
    expect(error.message).toMatch(/^The DOCX file is compressed \d+:1, which no document is \(a zip bomb\?\): it was not read$/);
  });

  it("counts the bytes really inflated when the directory lies about them", async () => {
    const bomb = lyingAboutSize(fixtures.zipBombDocx(512 * 1024 * 1024), "word/document.xml", 1000);
    const started = Date.now();
    const error = await failure(extract(bomb, "XLSX").result);
    expect(error.message).toBe("The XLSX file inflates to more than 100 MB (a zip bomb?): it was not read");
    // Stopped at the limit, not after inflating the whole 512 MB.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("refuses a damaged zip", async () => {
    const docx = await fixtures.docxDocument();
    const error = await failure(extract(docx.subarray(0, docx.length - 30), "DOCX").result);
    expect(error.message).toBe("The DOCX file is damaged (it is not a complete zip archive: truncated?)");
  });
});

describe("PowerPoint", () => {
  it("reads a PPTX slide by slide with the speaker notes and the author", async () => {
    const document = await extract(fixtures.pptxPresentation(), "PPTX").result;
    expect(document.pageCount).toBe(3);
    expect(document.author).toBe(fixtures.PPTX.author);
    expect(document.pages.map((page) => page.number)).toEqual([1, 2, 3]);
    fixtures.PPTX.slides.forEach((slide, index) =>
      expect(texts(document)[index]).toBe([slide.title, ...slide.body, `Notes: ${slide.notes}`].join("\n")),
    );
  });

  it("refuses a PPTX with more slides than the page limit", async () => {
    expect((await failure(extract(fixtures.pptxPresentation(), "PPTX", { maxPages: 2 }).result)).message).toBe(
      "The document has 3 pages, more than the limit of 2",
    );
  });

  it("reads a PowerPoint 97 PPT slide by slide", async () => {
    const document = await extract(fixtures.pptPresentation(), "PPT").result;
    expect(document.pageCount).toBe(fixtures.PPT.slides.length);
    fixtures.PPT.slides.forEach((slide, index) => {
      for (const line of [slide.title, ...slide.body]) expect(texts(document)[index]).toContain(line);
    });
  });
});

describe("old binary formats", () => {
  it("refuses a PPT that is not a compound file (catppt would print an error and succeed)", async () => {
    expect((await failure(extract(Buffer.from("Plate tectonics\n"), "PPT").result)).message).toBe(
      "The file is not a PowerPoint 97-2003 presentation (it is not an OLE compound file)",
    );
  });

  it("refuses a compound file without the format's stream (a Word document read as XLS)", async () => {
    expect((await failure(extract(fixtures.wordDocument(), "XLS").result)).message).toBe(
      "The file is not an Excel 97-2003 workbook (it has no Workbook stream)",
    );
  });
});

describe("spreadsheets", () => {
  const rendered = (sheet: fixtures.SheetFixture) => [`Sheet: ${sheet.name}`, ...sheet.rows.map((row) => row.join(" | "))].join("\n");

  it("reads an XLSX sheet by sheet as rows, with the creator", async () => {
    const document = await extract(fixtures.xlsxWorkbook(), "XLSX").result;
    expect(document.pageCount).toBe(2);
    expect(document.author).toBe(fixtures.XLSX_WORKBOOK.creator);
    expect(texts(document)).toEqual(fixtures.XLSX_WORKBOOK.sheets.map(rendered));
  });

  it("reads an XLS sheet by sheet with the sheet names and the author", async () => {
    const document = await extract(fixtures.xlsWorkbook(), "XLS").result;
    expect(document.pageCount).toBe(2);
    expect(texts(document)).toEqual(fixtures.XLS_WORKBOOK.sheets.map(rendered));
    expect(document.author).toBe(fixtures.XLS_WORKBOOK.author);
  });

  it("reads a CSV as rows, the header included, quoted commas kept in their cell", async () => {
    const document = await extract(fixtures.csvFile(), "CSV").result;
    expect(document.pageCount).toBe(1);
    expect(texts(document)).toEqual([fixtures.CSV.rows.map((row) => row.join(" | ")).join("\n")]);
  });

  it("reads a semicolon-separated CSV", async () => {
    const document = await extract(Buffer.from("Week;Topic\n1;Cells\n\n2;Genes\n"), "CSV").result;
    expect(texts(document)).toEqual(["Week | Topic\n1 | Cells\n2 | Genes"]);
  });
});

describe("text formats", () => {
  it("reads an RTF with its accented characters and its author", async () => {
    const document = await extract(fixtures.rtfDocument(), "RTF").result;
    expect(document.author).toBe(fixtures.RTF.author);
    expect(document.pageCount).toBe(1);
    expect(texts(document)).toEqual([fixtures.RTF.paragraphs.join("\n")]);
  });

  it("splits an RTF at its page breaks and reads Unicode escapes", async () => {
    // As Word writes them: \uN followed by its code-page fallback \'hh.
    const rtf = "{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0 Times;}}\\f0 Na\\u239\\'efve \\u8364\\'805 fee\\par\\page Second page\\par}";
    const document = await extract(Buffer.from(rtf, "latin1"), "RTF").result;
    expect(texts(document)).toEqual(["Naïve €5 fee", "Second page"]);
    expect(document.pageCount).toBe(2);
  });

  it("reads Markdown as it is", async () => {
    const document = await extract(fixtures.markdownFile(), "MD").result;
    expect(texts(document)).toEqual([fixtures.MARKDOWN.text.trim()]);
    expect(document.author).toBeNull();
  });

  it("reads UTF-8 text, with or without a byte-order mark", async () => {
    for (const bytes of [fixtures.utf8TextFile(), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fixtures.utf8TextFile()])]) {
      expect(texts(await extract(bytes, "TXT").result)).toEqual([fixtures.UTF8_TEXT.text.trim()]);
    }
  });

  it("detects an 8-bit encoding", async () => {
    expect(texts(await extract(fixtures.latin1TextFile(), "TXT").result)).toEqual([fixtures.LATIN1_TEXT.text.trim()]);
  });

  it("reads UTF-16 text with a byte-order mark", async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Osmosis moves water\r\nacross membranes\r\n", "utf16le")]);
    expect(texts(await extract(bytes, "TXT").result)).toEqual(["Osmosis moves water\nacross membranes"]);
  });

  it("refuses a text file over the character limit without reading it", async () => {
    expect((await failure(extract(Buffer.alloc(5000, "a"), "TXT", { maxTextChars: 1000 }).result)).message).toBe(
      "The document's text is longer than the limit of 1000 characters",
    );
  });
});

describe("images", () => {
  it.each([
    ["png", "PNG"],
    ["jpeg", "JPEG"],
    ["webp", "WEBP"],
    ["gif", "GIF"],
  ] as const)("reads a %s by OCR as one page", async (kind, format) => {
    const { result, progress } = extract(fixtures.textImage(kind), format);
    const document = await result;
    expect(document.pageCount).toBe(1);
    expect(document.pages).toHaveLength(1);
    expect(document.pages[0]?.ocr).toBe(true);
    expect(normalised(texts(document)[0] ?? "")).toContain(normalised(fixtures.IMAGE_TEXT.lines.join(" ")));
    expect(progress).toEqual([[1, 1]]);
  });

  it("answers an image without text with one empty page", async () => {
    const blank = sharp({ create: { width: 400, height: 200, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    const document = await extract(blank, "PNG").result;
    expect(document.pages).toEqual([{ number: 1, text: "", ocr: true }]);
    expect(document.pageCount).toBe(1);
  });

  it("refuses an image whose header declares too many pixels, before decoding it", async () => {
    const header = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
    header.writeUInt32BE(13, 8);
    header.write("IHDR", 12, "latin1");
    header.writeUInt32BE(100_000, 16);
    header.writeUInt32BE(100_000, 20);
    expect((await failure(extract(header, "PNG").result)).message).toBe(
      "The image is too large to be read (100000 × 100000 pixels, more than 100 megapixels)",
    );
  });
});

/** The archive with `name`'s uncompressed size rewritten to `declared` in its local and central headers. */
function lyingAboutSize(zip: Buffer, name: string, declared: number): Buffer {
  const copy = Buffer.from(zip);
  const local = copy.indexOf(name);
  const central = copy.indexOf(name, local + name.length);
  copy.writeUInt32LE(declared, local - 30 + 22);
  copy.writeUInt32LE(declared, central - 46 + 24);
  return copy;
}
