import { constants as zlibConstants, crc32, deflateRawSync } from "node:zlib";

/** An entry already compressed (deflate or stored), with the sizes and CRC its headers declare. */
export interface ZipEntry {
  name: string;
  method: "deflate" | "store";
  data: Buffer;
  crc: number;
  uncompressedSize: number;
}

/** A small entry compressed the ordinary way. */
export function deflatedEntry(name: string, content: string | Buffer): ZipEntry {
  const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  return { name, method: "deflate", data: deflateRawSync(bytes), crc: crc32(bytes), uncompressedSize: bytes.length };
}

const MEBIBYTE = 1024 * 1024;

/**
 * An entry of `uncompressedSize` zero bytes (at most 4 GiB - 1: no zip64), deflated without ever holding them:
 * one mebibyte of zeros is deflated once with a full flush (byte-aligned, no back-reference into the next part),
 * the result is repeated, and a final empty stored block ends the stream. Inflating it really yields the size.
 */
export function zerosEntry(name: string, uncompressedSize: number): ZipEntry {
  if (!Number.isInteger(uncompressedSize) || uncompressedSize < 0 || uncompressedSize > 0xffffffff) {
    throw new RangeError("zerosEntry: size must be an integer in [0, 4 GiB)");
  }
  const zeros = Buffer.alloc(Math.min(MEBIBYTE, uncompressedSize));
  const part = (size: number) => deflateRawSync(zeros.subarray(0, size), { finishFlush: zlibConstants.Z_FULL_FLUSH });
  const whole = Math.floor(uncompressedSize / MEBIBYTE);
  const rest = uncompressedSize % MEBIBYTE;
  const parts: Buffer[] = [];
  if (whole > 0) parts.push(...Array<Buffer>(whole).fill(part(MEBIBYTE)));
  if (rest > 0) parts.push(part(rest));
  parts.push(Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff])); // BFINAL stored block of length 0
  let crc = 0;
  for (let i = 0; i < whole; i += 1) crc = crc32(zeros, crc);
  if (rest > 0) crc = crc32(zeros.subarray(0, rest), crc);
  return { name, method: "deflate", data: Buffer.concat(parts), crc, uncompressedSize };
}

// 2026-01-01 00:00 in MS-DOS date/time fields.
const DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

/** A zip archive (local headers, data, central directory, end record) of the given entries, in that order. */
export function zipArchive(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const method = entry.method === "deflate" ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); // local file header signature
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // flags: UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.uncompressedSize, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, entry.data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); // central directory header signature
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6); // version needed
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(entry.crc >>> 0, 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(entry.uncompressedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42); // offset of the local header
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); // end of central directory signature
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
