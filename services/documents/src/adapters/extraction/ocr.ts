import { open } from "node:fs/promises";
import { ExtractionFailedError } from "../../application/ports/text-extractor.port";
import type { ExtractionContext, FormatReader } from "./extraction-context";

/** Reads the text of an image with tesseract (one thread: the worker's cores are shared, and it is as fast here). */
export async function ocrImage(context: ExtractionContext, imagePath: string): Promise<string> {
  return context.run(context.settings.tools.tesseract, [imagePath, "-", "-l", context.settings.ocrLanguage], {
    env: { OMP_THREAD_LIMIT: "1" },
  });
}

/** JPEG, PNG, GIF (its first frame), WEBP: one page read by OCR; an image without text is one empty page. */
export const readImage: FormatReader = async (context) => {
  const size = await imageSize(context.filePath);
  if (size && size.width * size.height > context.settings.maxImagePixels) {
    throw new ExtractionFailedError(
      `The image is too large to be read (${size.width} × ${size.height} pixels, more than ${Math.round(context.settings.maxImagePixels / 1e6)} megapixels)`,
    );
  }
  const text = await ocrImage(context, context.filePath);
  return { pages: [{ number: 1, text, ocr: true }], author: null, pageCount: 1 };
};

/** Bytes of an image's start read for its size: JPEG's frame header may follow large metadata segments. */
const HEAD_BYTES = 256 * 1024;

/**
 * Width and height from the image's header, before a decoder allocates them (a 100 000 × 100 000 PNG is a few
 * KB); undefined when the header is not found (tesseract then decides).
 */
export async function imageSize(path: string): Promise<{ width: number; height: number } | undefined> {
  const file = await open(path, "r");
  const head = Buffer.alloc(HEAD_BYTES);
  let length: number;
  try {
    ({ bytesRead: length } = await file.read(head, 0, HEAD_BYTES, 0));
  } finally {
    await file.close();
  }
  const bytes = head.subarray(0, length);
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47) return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 10 && bytes.toString("latin1", 0, 3) === "GIF") return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes.length >= 30 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return webpSize(bytes);
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegSize(bytes);
  return undefined;
}

function webpSize(bytes: Buffer): { width: number; height: number } | undefined {
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8X") return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (chunk === "VP8L") {
    const bits = bytes.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 ") return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  return undefined;
}

/** Walks the JPEG segments to the first start-of-frame (SOF0-15 but DHT, JPG, DAC). */
function jpegSize(bytes: Buffer): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] ?? 0;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: bytes.readUInt16BE(offset + 7), height: bytes.readUInt16BE(offset + 5) };
    }
    offset += 2 + bytes.readUInt16BE(offset + 2);
  }
  return undefined;
}
