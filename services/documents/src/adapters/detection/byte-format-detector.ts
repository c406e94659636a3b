import { Readable } from "node:stream";
import * as CFB from "cfb";
import chardet from "chardet";
import iconv from "iconv-lite";
import type { DocumentFormat } from "../../domain/document-format";
import type { FormatDetector } from "../../application/ports/format-detector.port";
import { looksLikeCsv, looksLikeMarkdown } from "./text-shape";

/** How much the detector reads. */
export interface FormatDetectionLimits {
  /** The head read for magic numbers and for the text checks (the whole file when smaller). */
  headBytes: number;
  /** The largest OLE compound file (doc, xls, ppt) whose directory is read (the whole file is read for it). */
  maxCompoundFileBytes: number;
  /** The tail of a zip kept to read its central directory (a larger directory is not read). */
  zipDirectoryBytes: number;
}

export const DEFAULT_FORMAT_DETECTION_LIMITS: FormatDetectionLimits = {
  headBytes: 64 * 1024,
  maxCompoundFileBytes: 150 * 1024 * 1024,
  zipDirectoryBytes: 1024 * 1024,
};

type FileTypeModule = typeof import("file-type");
type FileTypeResult = Awaited<ReturnType<FileTypeModule["fileTypeFromBuffer"]>>;

// file-type is ESM-only: a real dynamic import (kept as such by TypeScript's node20 module mode), loaded once.
let fileTypeModule: Promise<FileTypeModule> | undefined;
const loadFileType = (): Promise<FileTypeModule> => (fileTypeModule ??= import("file-type"));

/** file-type's extensions for the formats accepted; anything else it names (exe, zip, mp3, …) is refused. */
const FORMAT_OF_FILE_TYPE: Readonly<Record<string, DocumentFormat>> = {
  png: "PNG",
  apng: "PNG",
  jpg: "JPEG",
  gif: "GIF",
  webp: "WEBP",
  rtf: "RTF",
  docx: "DOCX",
  pptx: "PPTX",
  xlsx: "XLSX",
};

const OLE_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
const UTF16BE_BOM = Buffer.from([0xfe, 0xff]);
const PDF_HEADER = Buffer.from("%PDF-", "latin1");

/**
 * The FormatDetector over the bytes: an OLE compound file by its stream names (cfb); a zip by file-type's walk of
 * the local headers up to [Content_Types].xml, which tells docx, pptx and xlsx apart (entries skipped, never
 * inflated but that small XML, within file-type's bounds on entry count, entry size and bytes scanned), else by
 * its central directory; PDF and RTF by their headers; then text — decodable (UTF-8, UTF-16 with a BOM, or an
 * 8-bit encoding chardet names), without NUL, few control characters — as CSV, Markdown or plain text by its
 * shape; else file-type's magic numbers (PNG, JPEG, GIF, WEBP). Everything else is null.
 */
export class ByteFormatDetector implements FormatDetector {
  constructor(private readonly limits: FormatDetectionLimits = DEFAULT_FORMAT_DETECTION_LIMITS) {}

  async detect(open: () => Promise<Readable>, size: number): Promise<DocumentFormat | null> {
    if (size <= 0) return null;
    const head = await readAtMost(open, Math.min(size, this.limits.headBytes));
    if (head.length === 0) return null;
    if (startsWith(head, OLE_SIGNATURE)) return this.detectCompoundFile(open, size);
    if (startsWith(head, ZIP_LOCAL_HEADER)) return this.detectZip(open, size);
    if (startsWith(head, PDF_HEADER)) return "PDF"; // may be all ASCII: decided before the text checks
    const magic = await fileTypeOfHead(head);
    if (magic?.ext === "rtf") return "RTF"; // text by nature
    // Text wins over the other signatures: a few bytes suffice for some ("GIF", "BM", "MZ", FF FE for MPEG
    // audio), which a text may begin with; a real image or program has binary bytes in its head.
    const text = detectText(head, head.length === size);
    if (text !== null) return text;
    return magic ? (FORMAT_OF_FILE_TYPE[magic.ext] ?? null) : null;
  }

  /**
   * docx, pptx or xlsx by file-type's walk of the local headers; when that walk ends before [Content_Types].xml
   * (some writers put it last, after megabytes of media), by the central directory's entry names, read from the
   * file's tail. Nothing is inflated but, in file-type, that small XML entry.
   */
  private async detectZip(open: () => Promise<Readable>, size: number): Promise<DocumentFormat | null> {
    const magic = await fileTypeOfStream(open);
    if (magic && magic.ext !== "zip") return FORMAT_OF_FILE_TYPE[magic.ext] ?? null;
    const tail = await readTail(open, Math.min(size, this.limits.zipDirectoryBytes));
    const names = zipEntryNames(tail, size);
    return names === null ? null : officeFormatOfEntries(names);
  }

  /** doc, xls or ppt by the streams an OLE compound file holds; null for any other (msi, msg, encrypted OOXML). */
  private async detectCompoundFile(open: () => Promise<Readable>, size: number): Promise<DocumentFormat | null> {
    if (size > this.limits.maxCompoundFileBytes) return null;
    const bytes = await readAtMost(open, size);
    let streams: Set<string>;
    try {
      const container = CFB.read(bytes, { type: "buffer" });
      streams = new Set(container.FileIndex.filter((entry) => entry.type === 2).map((entry) => entry.name));
    } catch {
      // A damaged compound file is not a document we can read: no format.
      return null;
    }
    if (streams.has("WordDocument")) return "DOC";
    if (streams.has("Workbook") || streams.has("Book")) return "XLS";
    if (streams.has("PowerPoint Document")) return "PPT";
    return null;
  }
}

/** Reads the first `limit` bytes (fewer if the stream ends first), then releases the stream. */
async function readAtMost(open: () => Promise<Readable>, limit: number): Promise<Buffer> {
  const stream = await open();
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(bytes.subarray(0, limit - length));
      length += Math.min(bytes.length, limit - length);
      if (length >= limit) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, length);
}

/** The last `length` bytes of the file: it is streamed through, keeping only that much. */
async function readTail(open: () => Promise<Readable>, length: number): Promise<Buffer> {
  const stream = await open();
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    for await (const chunk of stream) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      chunks.push(bytes);
      kept += bytes.length;
      while (chunks.length > 1 && kept - chunks[0].length >= length) kept -= chunks.shift()?.length ?? 0;
    }
  } finally {
    stream.destroy();
  }
  const tail = Buffer.concat(chunks, kept);
  return tail.subarray(Math.max(0, tail.length - length));
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_HEADER = 0x02014b50;

/**
 * The entry names of a zip's central directory, from the file's tail (the end record is within its last
 * 64 KiB + 22 bytes); null when the directory is not wholly in the tail, is zip64, or is malformed.
 */
export function zipEntryNames(tail: Buffer, fileSize: number): string[] | null {
  const tailStart = fileSize - tail.length;
  for (let end = tail.length - 22; end >= Math.max(0, tail.length - 22 - 0xffff); end -= 1) {
    if (tail.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) continue;
    const entries = tail.readUInt16LE(end + 10);
    const directorySize = tail.readUInt32LE(end + 12);
    const directoryOffset = tail.readUInt32LE(end + 16);
    if (entries === 0xffff || directoryOffset === 0xffffffff) return null; // zip64
    let position = directoryOffset - tailStart;
    if (position < 0 || position + directorySize > end) return null;
    const names: string[] = [];
    for (let index = 0; index < entries; index += 1) {
      if (position + 46 > end || tail.readUInt32LE(position) !== CENTRAL_DIRECTORY_HEADER) return null;
      const nameLength = tail.readUInt16LE(position + 28);
      const extraLength = tail.readUInt16LE(position + 30);
      const commentLength = tail.readUInt16LE(position + 32);
      names.push(tail.toString("utf8", position + 46, Math.min(end, position + 46 + nameLength)));
      position += 46 + nameLength + extraLength + commentLength;
    }
    return names;
  }
  return null;
}

/** An Office Open XML package has [Content_Types].xml; its main part's folder names the kind. */
export function officeFormatOfEntries(names: readonly string[]): DocumentFormat | null {
  if (!names.includes("[Content_Types].xml")) return null;
  if (names.includes("word/document.xml")) return "DOCX";
  if (names.includes("ppt/presentation.xml")) return "PPTX";
  if (names.includes("xl/workbook.xml")) return "XLSX";
  return null;
}

const startsWith = (bytes: Buffer, prefix: Buffer): boolean => bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);

/**
 * file-type on the head: every signature it checks lies in the first few kilobytes. A malformed file may make it
 * throw: that is no known type (the text checks then refuse binary bytes).
 */
async function fileTypeOfHead(head: Buffer): Promise<FileTypeResult> {
  const { fileTypeFromBuffer } = await loadFileType();
  try {
    return await fileTypeFromBuffer(head);
  } catch {
    // Undecidable bytes: not a type file-type knows.
    return undefined;
  }
}

/**
 * file-type on the whole stream, for a zip: it walks the local headers (skipping the entries' data) until the
 * entry that names the layout. Read errors of the stream itself are rethrown (storage failure, not a bad file).
 */
async function fileTypeOfStream(open: () => Promise<Readable>): Promise<FileTypeResult> {
  const { fileTypeFromStream } = await loadFileType();
  const stream = await open();
  let readError: unknown;
  stream.on("error", (error) => {
    readError = error;
  });
  // file-type's tokenizer needs a byte stream: an object-mode one (Readable.from of chunks) reads as nothing.
  const bytes = Readable.from(stream, { objectMode: false });
  try {
    return await fileTypeFromStream(bytes);
  } catch (error) {
    if (readError !== undefined) throw error;
    // A malformed archive: file-type could not decide, so no accepted format.
    return undefined;
  } finally {
    bytes.destroy();
    stream.destroy();
  }
}

/**
 * C0 controls other than tab, line feed, vertical tab, form feed and carriage return; DEL; C1 controls; the
 * replacement character (bytes the decoder could not map).
 */
function isControlCharacter(code: number): boolean {
  return (code < 0x20 && (code < 0x09 || code > 0x0d)) || (code >= 0x7f && code <= 0x9f) || code === 0xfffd;
}

function countControlCharacters(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) if (isControlCharacter(text.charCodeAt(index))) count += 1;
  return count;
}

/** The share of control (or undecodable) characters above which decoded bytes are not text. */
const MAX_CONTROL_SHARE = 0.01;

/** TXT, CSV or MD when the head is text; null for binary bytes. `complete` when the head is the whole file. */
export function detectText(head: Buffer, complete: boolean): DocumentFormat | null {
  const text = decodeText(head, complete);
  if (text === null) return null;
  if (countControlCharacters(text) > text.length * MAX_CONTROL_SHARE) return null;
  if (looksLikeCsv(text, complete)) return "CSV";
  if (looksLikeMarkdown(text)) return "MD";
  return "TXT";
}

/** The head decoded: BOM first, then strict UTF-8 (no NUL), then the 8-bit encoding chardet names. */
function decodeText(head: Buffer, complete: boolean): string | null {
  if (startsWith(head, UTF8_BOM)) return decodeUtf8(head.subarray(3), complete);
  if (startsWith(head, UTF16LE_BOM)) return new TextDecoder("utf-16le").decode(head.subarray(2), { stream: !complete });
  if (startsWith(head, UTF16BE_BOM)) return new TextDecoder("utf-16be").decode(head.subarray(2), { stream: !complete });
  if (head.includes(0)) return null;
  const utf8 = decodeUtf8(head, complete);
  if (utf8 !== null) return utf8;
  const encoding = chardet.detect(head);
  // An encoding iconv-lite lacks (ISO-2022 and the like) is read as Latin-1: the control check still refuses binary.
  return iconv.decode(head, encoding !== null && iconv.encodingExists(encoding) ? encoding : "latin1");
}

/** Strict UTF-8; when the head is cut, a character split at its end is not an error. */
function decodeUtf8(bytes: Uint8Array, complete: boolean): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete });
  } catch {
    // Invalid UTF-8: the caller tries an 8-bit encoding.
    return null;
  }
}
