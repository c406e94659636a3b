import { createInflateRaw } from "node:zlib";
import { ExtractionFailedError } from "../../application/ports/text-extractor.port";

/** One entry of a zip's central directory, as declared (a hostile file may lie: see `checkZipInflation`). */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; anything else is refused. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

/** Above this declared size, a compression ratio over MAX_COMPRESSION_RATIO is refused as a bomb. */
const RATIO_CHECKED_ABOVE_BYTES = 4 * 1024 * 1024;
/** Office XML compresses 5-30:1; a deflate bomb reaches ~1000:1. */
const MAX_COMPRESSION_RATIO = 100;
const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_EOCD_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
/** The end-of-central-directory record (22 bytes) may be followed by a comment of up to 65535 bytes. */
const EOCD_SEARCH_BYTES = 22 + 0xffff;

const damaged = (label: string, detail: string) => new ExtractionFailedError(`The ${label} file is damaged (${detail})`);

/** Bounds-checked little-endian reads: a truncated or lying zip fails as damaged, never reads out of range. */
function reader(buffer: Buffer, label: string) {
  const need = (offset: number, length: number) => {
    if (offset < 0 || offset + length > buffer.length) throw damaged(label, "its zip directory points outside the file");
  };
  return {
    u16: (offset: number) => (need(offset, 2), buffer.readUInt16LE(offset)),
    u32: (offset: number) => (need(offset, 4), buffer.readUInt32LE(offset)),
    u64: (offset: number) => {
      need(offset, 8);
      const value = buffer.readBigUInt64LE(offset);
      return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
    },
    text: (offset: number, length: number) => (need(offset, length), buffer.toString("utf8", offset, offset + length)),
  };
}

/** Reads a zip's central directory (zip64 included) without inflating anything. */
export function readZipDirectory(buffer: Buffer, label: string): ZipEntry[] {
  const read = reader(buffer, label);
  let eocd = -1;
  for (let offset = buffer.length - 22; offset >= Math.max(0, buffer.length - EOCD_SEARCH_BYTES); offset--) {
    if (buffer.readUInt32LE(offset) === EOCD_SIGNATURE) {
      eocd = offset;
      break;
    }
  }
  if (eocd < 0) throw damaged(label, "it is not a complete zip archive: truncated?");
  let entryCount = read.u16(eocd + 10);
  let directoryOffset = read.u32(eocd + 16);
  if (entryCount === 0xffff || directoryOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || read.u32(locator) !== ZIP64_EOCD_LOCATOR_SIGNATURE) throw damaged(label, "its zip64 directory is missing");
    const zip64Eocd = read.u64(locator + 8);
    if (read.u32(zip64Eocd) !== ZIP64_EOCD_SIGNATURE) throw damaged(label, "its zip64 directory is missing");
    entryCount = read.u64(zip64Eocd + 32);
    directoryOffset = read.u64(zip64Eocd + 48);
  }
  const entries: ZipEntry[] = [];
  let offset = directoryOffset;
  for (let index = 0; index < entryCount; index++) {
    if (read.u32(offset) !== CENTRAL_HEADER_SIGNATURE) throw damaged(label, "its zip directory is corrupt");
    const nameLength = read.u16(offset + 28);
    const extraLength = read.u16(offset + 30);
    const commentLength = read.u16(offset + 32);
    const entry: ZipEntry = {
      name: read.text(offset + 46, nameLength),
      method: read.u16(offset + 10),
      compressedSize: read.u32(offset + 20),
      uncompressedSize: read.u32(offset + 24),
      localHeaderOffset: read.u32(offset + 42),
    };
    readZip64Sizes(read, offset + 46 + nameLength, extraLength, entry);
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A field saturated at 0xffffffff is in the zip64 extra field (id 1), in the order the spec fixes. */
function readZip64Sizes(read: ReturnType<typeof reader>, extraStart: number, extraLength: number, entry: ZipEntry): void {
  const saturated = (value: number) => value === 0xffffffff;
  if (!saturated(entry.uncompressedSize) && !saturated(entry.compressedSize) && !saturated(entry.localHeaderOffset)) return;
  for (let field = extraStart; field + 4 <= extraStart + extraLength;) {
    const id = read.u16(field);
    const size = read.u16(field + 2);
    if (id === 1) {
      let cursor = field + 4;
      const next = () => {
        const value = read.u64(cursor);
        cursor += 8;
        return value;
      };
      if (saturated(entry.uncompressedSize)) entry.uncompressedSize = next();
      if (saturated(entry.compressedSize)) entry.compressedSize = next();
      if (saturated(entry.localHeaderOffset)) entry.localHeaderOffset = next();
      return;
    }
    field += 4 + size;
  }
}

/**
 * Refuses a zip bomb before any parser sees the file: first by the directory's declared sizes (sum over
 * `maxInflatedBytes`, or a ratio no office file has), then by inflating every entry and counting the bytes it
 * really yields (declared sizes can lie), stopping as soon as the total passes the bound. Nothing inflated is
 * kept: the parsers read the (now known to be bounded) archive themselves. zlib's native stream inflates
 * ~200 MB/s here, ten times fflate's streaming inflater.
 */
export async function checkZipInflation(buffer: Buffer, label: string, maxInflatedBytes: number, signal?: AbortSignal): Promise<ZipEntry[]> {
  const entries = readZipDirectory(buffer, label);
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  const compressed = entries.reduce((sum, entry) => sum + entry.compressedSize, 0);
  const tooLarge = () =>
    new ExtractionFailedError(`The ${label} file inflates to more than ${formatBytes(maxInflatedBytes)} (a zip bomb?): it was not read`);
  if (declared > maxInflatedBytes) throw tooLarge();
  if (declared > RATIO_CHECKED_ABOVE_BYTES && declared > MAX_COMPRESSION_RATIO * Math.max(compressed, 1)) {
    throw new ExtractionFailedError(
      `The ${label} file is compressed ${Math.round(declared / Math.max(compressed, 1))}:1, which no document is (a zip bomb?): it was not read`,
    );
  }
  const read = reader(buffer, label);
  let inflated = 0;
  for (const entry of entries) {
    if (read.u32(entry.localHeaderOffset) !== LOCAL_HEADER_SIGNATURE) throw damaged(label, "a zip entry is missing");
    const dataStart = entry.localHeaderOffset + 30 + read.u16(entry.localHeaderOffset + 26) + read.u16(entry.localHeaderOffset + 28);
    const dataEnd = dataStart + entry.compressedSize;
    if (dataEnd > buffer.length) throw damaged(label, "a zip entry runs past the end of the file: truncated?");
    if (entry.method === 0) {
      inflated += entry.compressedSize;
    } else if (entry.method === 8) {
      inflated += await inflatedSize(buffer.subarray(dataStart, dataEnd), maxInflatedBytes - inflated, label, signal);
    } else {
      throw new ExtractionFailedError(`The ${label} file uses a zip compression method (${entry.method}) documents never use`);
    }
    if (inflated > maxInflatedBytes) throw tooLarge();
  }
  return entries;
}

/** Bytes a raw deflate stream inflates to, counted as they come and given up past `budget` (then > budget). */
function inflatedSize(data: Buffer, budget: number, label: string, signal?: AbortSignal): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const inflater = createInflateRaw();
    let count = 0;
    const stop = () => {
      signal?.removeEventListener("abort", onAbort);
      inflater.destroy();
    };
    const onAbort = () => {
      stop();
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    inflater.on("data", (chunk: Buffer) => {
      count += chunk.length;
      if (count > budget) {
        stop();
        resolve(count);
      }
    });
    inflater.on("end", () => {
      stop();
      resolve(count);
    });
    inflater.on("error", (error) => {
      stop();
      reject(new ExtractionFailedError(`The ${label} file is damaged (a zip entry does not inflate)`, { cause: error }));
    });
    inflater.end(data);
  });
}

const formatBytes = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${bytes} bytes`);
