import { Readable } from "node:stream";
import { crc32 } from "node:zlib";
import * as CFB from "cfb";
import {
  ACCEPTED_FIXTURES,
  CSV,
  emptyFile,
  encryptedPdf,
  executableAsPdf,
  latin1TextFile,
  manyPagesPdf,
  mixedPdf,
  plainZip,
  randomJunk,
  deflatedEntry,
  zipArchive,
  truncatedPdf,
  utf8TextFile,
  zipBombDocx,
} from "@study/testkit/documents";
import { ByteFormatDetector, DEFAULT_FORMAT_DETECTION_LIMITS } from "../../src/adapters/detection/byte-format-detector";

/** The file as a stream in 16 KiB chunks (as a file read would give it), counting the bytes pulled. */
function source(bytes: Buffer) {
  const read = { bytes: 0, opens: 0 };
  const open = () => {
    read.opens += 1;
    return Promise.resolve(
      Readable.from(
        (function* chunks() {
          for (let offset = 0; offset < bytes.length; offset += 16 * 1024) {
            const chunk = bytes.subarray(offset, offset + 16 * 1024);
            read.bytes += chunk.length;
            yield chunk;
          }
        })(),
      ),
    );
  };
  return { open, size: bytes.length, read };
}

const detector = new ByteFormatDetector();
const detect = (bytes: Buffer) => {
  const file = source(bytes);
  return detector.detect(file.open, file.size);
};

const compoundFile = (streams: Record<string, Buffer>): Buffer => {
  const container = CFB.utils.cfb_new();
  for (const [name, content] of Object.entries(streams)) CFB.utils.cfb_add(container, `/${name}`, content);
  return Buffer.from(CFB.write(container, { type: "buffer" }) as Uint8Array);
};

describe("ByteFormatDetector", () => {
  it.each(ACCEPTED_FIXTURES.map((fixture) => [fixture.fileName, fixture.format, fixture.build] as const))(
    "detects %s as %s from its bytes",
    async (_name, format, build) => {
      expect(await detect(await build())).toBe(format);
    },
  );

  it("detects the mixed, encrypted, truncated and 600-page PDFs as PDF (extraction refuses the bad ones)", async () => {
    expect(await detect(await mixedPdf())).toBe("PDF");
    expect(await detect(await encryptedPdf())).toBe("PDF");
    expect(await detect(await truncatedPdf())).toBe("PDF");
    expect(await detect(await manyPagesPdf())).toBe("PDF");
  });

  it("refuses an executable renamed .pdf, a plain zip, an empty file and binary junk", async () => {
    expect(await detect(executableAsPdf())).toBeNull();
    expect(await detect(plainZip())).toBeNull();
    expect(await detect(emptyFile())).toBeNull();
    expect(await detect(randomJunk())).toBeNull();
    expect(await detect(randomJunk(64, 7))).toBeNull();
    expect(await detect(randomJunk(200 * 1024, 11))).toBeNull();
    // Binary after a UTF-16 byte-order mark (FF FE also starts MPEG audio) decodes to lone surrogates: not text.
    expect(await detect(Buffer.concat([Buffer.from([0xff, 0xfe]), randomJunk(8192, 3)]))).toBeNull();
  });

  it("takes a text file named .pdf for the text it is (the name is never looked at)", async () => {
    expect(await detect(Buffer.from("Lab report: the name says PDF, the bytes say text.\nSecond line.\n"))).toBe("TXT");
    expect(await detect(utf8TextFile())).toBe("TXT");
  });

  it("detects a zip bomb's DOCX layout without inflating it: it reads the head and the small [Content_Types].xml", async () => {
    const bomb = zipBombDocx(); // word/document.xml inflates to 1 GiB
    const file = source(bomb);
    const started = process.hrtime.bigint();
    expect(await detector.detect(file.open, file.size)).toBe("DOCX");
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
    // Far less than the compressed file (~1 MB), let alone the gigabyte it inflates to.
    expect(file.read.bytes).toBeLessThan(256 * 1024);
    expect(file.read.bytes).toBeLessThan(bomb.length / 4);
  });

  it("finds a DOCX whose [Content_Types].xml comes after 17 MiB of media by its central directory", async () => {
    const media = Buffer.alloc(17 * 1024 * 1024, 0x5a);
    const docx = zipArchive([
      { name: "word/media/scan.bin", method: "store", data: media, crc: crc32(media), uncompressedSize: media.length },
      deflatedEntry("word/document.xml", "<w:document/>"),
      deflatedEntry("[Content_Types].xml", "<Types/>"),
    ]);
    expect(await detect(docx)).toBe("DOCX");
    const notOffice = zipArchive([
      { name: "media/scan.bin", method: "store", data: media, crc: crc32(media), uncompressedSize: media.length },
      deflatedEntry("word/document.xml", "<w:document/>"),
    ]);
    expect(await detect(notOffice)).toBeNull();
  });

  it("reads a PDF's head only, once", async () => {
    const pdf = source(await manyPagesPdf());
    expect(await detector.detect(pdf.open, pdf.size)).toBe("PDF");
    expect(pdf.read.opens).toBe(1);
    expect(pdf.read.bytes).toBeLessThanOrEqual(64 * 1024 + 16 * 1024);
  });

  it("reads a text that begins like a short signature as text; an all-ASCII PDF stays a PDF", async () => {
    for (const text of ["GIF is a format.\nSo is PNG.\n", "BMI report for the class\n", "MZ: notes on Mozart\n", "%PDF is not a format here\n"]) {
      expect(await detect(Buffer.from(text))).toBe("TXT");
    }
    const asciiPdf = "%PDF-1.1\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";
    expect(await detect(Buffer.from(asciiPdf))).toBe("PDF");
  });

  it("decodes a Windows-1252 (Latin-1) text, and UTF-16 and UTF-8 with a byte-order mark", async () => {
    expect(await detect(latin1TextFile())).toBe("TXT");
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Notes: entropy — Δ S ≥ 0\nSecond line\n", "utf16le")]);
    expect(await detect(utf16)).toBe("TXT");
    expect(await detect(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CSV.text)]))).toBe("CSV");
  });

  it("keeps a UTF-8 character cut at the end of the head from making a long text binary", async () => {
    // 64 KiB head: "é" (2 bytes) straddles the boundary at an odd offset.
    const long = Buffer.from("x" + "é".repeat(40_000) + "\nend\n", "utf8");
    expect(await detect(long)).toBe("TXT");
  });

  it("tells CSV (comma, semicolon, tab) from Markdown and plain text by shape", async () => {
    expect(await detect(Buffer.from("a;b;c\n1;2;3\n4;5;6\n"))).toBe("CSV");
    expect(await detect(Buffer.from("week\ttopic\n1\tCells\n2\tGenes\n"))).toBe("CSV");
    expect(await detect(Buffer.from('title,notes\n"Lab 1","line one\nline two, with a comma"\n"Lab 2",plain\n'))).toBe("CSV");
    // Commas, but not in columns; a paragraph break.
    expect(await detect(Buffer.from("Dear class, the exam moved.\n\nBring pencils, erasers, and water.\nThanks\n"))).toBe("TXT");
    expect(await detect(Buffer.from("# Week 1\n\nIntro.\n\n# Week 2\n\nMore.\n"))).toBe("MD");
    expect(await detect(Buffer.from("Reading list\n\n- Chapter 1\n- See [notes](https://example.org)\n"))).toBe("MD");
    expect(await detect(Buffer.from("Shopping:\n- milk\n- eggs\n"))).toBe("TXT");
  });

  it("tells the OLE compound files apart by their streams and refuses the others", async () => {
    expect(await detect(compoundFile({ Book: Buffer.alloc(600, 1) }))).toBe("XLS"); // Excel 5 (BIFF5)
    expect(await detect(compoundFile({ "Some Installer Table": Buffer.alloc(600, 1) }))).toBeNull();
    expect(await detect(compoundFile({ EncryptedPackage: Buffer.alloc(600, 1), EncryptionInfo: Buffer.alloc(64, 1) }))).toBeNull();
    const damaged = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), randomJunk(3000)]);
    expect(await detect(damaged)).toBeNull();
  });

  it("does not read an OLE file larger than its limit", async () => {
    const small = new ByteFormatDetector({ ...DEFAULT_FORMAT_DETECTION_LIMITS, maxCompoundFileBytes: 1024 });
    const file = source(compoundFile({ WordDocument: Buffer.alloc(5000, 1) }));
    expect(await small.detect(file.open, file.size)).toBeNull();
    expect(file.read.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it("rejects when the file cannot be read (a storage failure is not an unexpected file)", async () => {
    const failing = () =>
      Promise.resolve(
        new Readable({
          read() {
            this.destroy(new Error("disk gone"));
          },
        }),
      );
    await expect(detector.detect(failing, 1000)).rejects.toThrow("disk gone");
  });
});
