/**
 * The audio formats the service accepts (spec: "Upload formats: MP3, WAV, M4A, AAC, OGG, FLAC, WEBM, MP4";
 * import MIME types audio/mpeg, audio/wav, audio/m4a, audio/aac, audio/ogg, audio/flac, audio/webm, video/mp4),
 * their MIME types and file extensions, and recognition of a file by its first bytes. Pure: no I/O.
 *
 * A declared MIME type or file name is only a claim; `detectAudioFormat` on the file's leading bytes is the
 * check that the content really is one of these formats.
 */

export type AudioFormat = "mp3" | "wav" | "m4a" | "aac" | "ogg" | "flac" | "webm" | "mp4";

export interface AudioFormatDescription {
  /** As the spec names it in "Upload formats". */
  label: string;
  /** The spec's MIME type for the format (the one stored and reported). */
  mimeType: string;
  /** Other MIME types clients and servers send for the same content. */
  mimeAliases: readonly string[];
  /** File extensions without the dot, lower case, the usual one first. */
  extensions: readonly string[];
}

export const AUDIO_FORMATS: Readonly<Record<AudioFormat, AudioFormatDescription>> = {
  mp3: {
    label: "MP3",
    mimeType: "audio/mpeg",
    mimeAliases: ["audio/mp3", "audio/mpeg3", "audio/x-mp3", "audio/x-mpeg", "audio/x-mpeg-3", "audio/mpg"],
    extensions: ["mp3"],
  },
  wav: {
    label: "WAV",
    mimeType: "audio/wav",
    mimeAliases: ["audio/x-wav", "audio/wave", "audio/vnd.wave", "audio/x-pn-wav"],
    extensions: ["wav", "wave"],
  },
  m4a: {
    label: "M4A",
    mimeType: "audio/m4a",
    mimeAliases: ["audio/x-m4a", "audio/mp4", "audio/mp4a-latm"],
    extensions: ["m4a"],
  },
  aac: {
    label: "AAC",
    mimeType: "audio/aac",
    mimeAliases: ["audio/x-aac", "audio/aacp", "audio/x-hx-aac-adts"],
    extensions: ["aac"],
  },
  ogg: {
    label: "OGG",
    mimeType: "audio/ogg",
    mimeAliases: ["audio/x-ogg", "application/ogg", "audio/vorbis", "audio/opus"],
    extensions: ["ogg", "oga", "opus"],
  },
  flac: {
    label: "FLAC",
    mimeType: "audio/flac",
    mimeAliases: ["audio/x-flac"],
    extensions: ["flac"],
  },
  webm: {
    label: "WEBM",
    mimeType: "audio/webm",
    // A WebM video's audio track is extracted like an MP4's.
    mimeAliases: ["video/webm"],
    extensions: ["webm", "weba"],
  },
  mp4: {
    label: "MP4",
    mimeType: "video/mp4",
    mimeAliases: ["application/mp4"],
    extensions: ["mp4"],
  },
};

export const AUDIO_FORMAT_LIST = Object.keys(AUDIO_FORMATS) as AudioFormat[];

/** The spec's MIME types for audio import, in its order. */
export const SUPPORTED_AUDIO_MIME_TYPES: readonly string[] = AUDIO_FORMAT_LIST.map((format) => AUDIO_FORMATS[format].mimeType);

/** How many leading bytes `detectAudioFormat` wants to see: enough to skip a typical ID3 tag. */
export const AUDIO_FORMAT_DETECTION_BYTES = 4096;

const FORMAT_BY_MIME_TYPE = new Map<string, AudioFormat>(
  AUDIO_FORMAT_LIST.flatMap((format) => [
    [AUDIO_FORMATS[format].mimeType, format] as const,
    ...AUDIO_FORMATS[format].mimeAliases.map((alias) => [alias, format] as const),
  ]),
);

const FORMAT_BY_EXTENSION = new Map<string, AudioFormat>(
  AUDIO_FORMAT_LIST.flatMap((format) => AUDIO_FORMATS[format].extensions.map((extension) => [extension, format] as const)),
);

/** `Audio/MPEG; charset=binary` → `audio/mpeg`. */
export function normalizeMimeType(mimeType: string): string {
  return mimeType.split(";")[0].trim().toLowerCase();
}

/** The format a MIME type (spec type or common alias, parameters ignored) stands for, or null. */
export function audioFormatFromMimeType(mimeType: string | null | undefined): AudioFormat | null {
  if (!mimeType) return null;
  return FORMAT_BY_MIME_TYPE.get(normalizeMimeType(mimeType)) ?? null;
}

/** The format a file name's extension stands for (`Lecture 1.MP3` → mp3), or null. */
export function audioFormatFromFileName(fileName: string | null | undefined): AudioFormat | null {
  if (!fileName) return null;
  const dot = fileName.lastIndexOf(".");
  if (dot < 0 || dot === fileName.length - 1) return null;
  return FORMAT_BY_EXTENSION.get(fileName.slice(dot + 1).toLowerCase()) ?? null;
}

export function isSupportedAudioMimeType(mimeType: string | null | undefined): boolean {
  return audioFormatFromMimeType(mimeType) !== null;
}

export function mimeTypeOfAudioFormat(format: AudioFormat): string {
  return AUDIO_FORMATS[format].mimeType;
}

export function extensionOfAudioFormat(format: AudioFormat): string {
  return AUDIO_FORMATS[format].extensions[0];
}

/**
 * Recognises a supported format from a file's first bytes (pass `AUDIO_FORMAT_DETECTION_BYTES` or the whole
 * file if shorter), or null when the content is none of them. MOV, 3GP and Matroska other than WebM are
 * deliberately not recognised: the spec does not list them.
 */
export function detectAudioFormat(firstBytes: Uint8Array): AudioFormat | null {
  if (startsWithAscii(firstBytes, 0, "ID3")) return detectAfterId3Tag(firstBytes);
  return detectWithoutId3(firstBytes);
}

function detectWithoutId3(bytes: Uint8Array): AudioFormat | null {
  if (startsWithAscii(bytes, 0, "fLaC")) return "flac";
  if (startsWithAscii(bytes, 0, "OggS")) return "ogg";
  if (
    (startsWithAscii(bytes, 0, "RIFF") || startsWithAscii(bytes, 0, "RF64") || startsWithAscii(bytes, 0, "BW64")) &&
    startsWithAscii(bytes, 8, "WAVE")
  ) {
    return "wav";
  }
  if (startsWithAscii(bytes, 4, "ftyp")) return detectIsoMediaBrand(bytes);
  if (bytes.length >= 4 && bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) {
    return ebmlDocType(bytes) === "webm" ? "webm" : null;
  }
  if (isAdtsHeader(bytes, 0)) return "aac";
  if (isMpegAudioFrameHeader(bytes, 0)) return "mp3";
  return null;
}

/**
 * An ID3v2 tag (10-byte header, size as four 7-bit "syncsafe" bytes, optional 10-byte footer) mostly precedes
 * MP3, sometimes AAC or FLAC: look at what follows the tag when those bytes are at hand.
 */
function detectAfterId3Tag(bytes: Uint8Array): AudioFormat | null {
  if (bytes.length < 10) return "mp3";
  const sizeBytes = [bytes[6], bytes[7], bytes[8], bytes[9]];
  if (sizeBytes.some((byte) => byte >= 0x80)) return null;
  const hasFooter = (bytes[5] & 0x10) !== 0;
  const tagEnd = 10 + ((sizeBytes[0] << 21) | (sizeBytes[1] << 14) | (sizeBytes[2] << 7) | sizeBytes[3]) + (hasFooter ? 10 : 0);
  if (bytes.length < tagEnd + 4) return "mp3";
  return detectWithoutId3(bytes.subarray(tagEnd));
}

const M4A_BRANDS = new Set(["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]);
const MP4_BRANDS = new Set([
  "isom",
  "iso2",
  "iso3",
  "iso4",
  "iso5",
  "iso6",
  "iso7",
  "iso8",
  "iso9",
  "mp41",
  "mp42",
  "mp71",
  "avc1",
  "dash",
  "M4V ",
  "M4VH",
  "M4VP",
  "MSNV",
  "NDAS",
  "NDSC",
  "NDSH",
  "NDSM",
  "NDSP",
  "NDSS",
  "NDXC",
  "NDXH",
  "NDXM",
  "NDXP",
  "NDXS",
  "f4v ",
  "mmp4",
  "XAVC",
]);

/** ISO base media file: `size ftyp major-brand minor-version compatible-brands…`. */
function detectIsoMediaBrand(bytes: Uint8Array): AudioFormat | null {
  if (bytes.length < 12) return null;
  const boxSize = readUint32(bytes, 0);
  const brands = [ascii(bytes, 8, 4)];
  for (let offset = 16; offset + 4 <= Math.min(boxSize, bytes.length); offset += 4) brands.push(ascii(bytes, offset, 4));
  if (M4A_BRANDS.has(brands[0])) return "m4a";
  if (MP4_BRANDS.has(brands[0])) return brands.some((brand) => M4A_BRANDS.has(brand)) ? "m4a" : "mp4";
  if (brands.some((brand) => M4A_BRANDS.has(brand))) return "m4a";
  return null;
}

/** The DocType string of an EBML header (element 0x4282), e.g. "webm" or "matroska". */
function ebmlDocType(bytes: Uint8Array): string | null {
  const end = Math.min(bytes.length, 64);
  for (let offset = 4; offset + 2 < end; offset++) {
    if (bytes[offset] !== 0x42 || bytes[offset + 1] !== 0x82) continue;
    const size = readEbmlVint(bytes, offset + 2);
    if (!size || offset + 2 + size.length + size.value > bytes.length) return null;
    return ascii(bytes, offset + 2 + size.length, size.value).replace(/\0+$/, "");
  }
  return null;
}

function readEbmlVint(bytes: Uint8Array, offset: number): { value: number; length: number } | null {
  const first = bytes[offset];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (length <= 8 && (first & (0x80 >> (length - 1))) === 0) length++;
  if (length > 8 || offset + length > bytes.length) return null;
  let value = first & (0xff >> length);
  for (let index = 1; index < length; index++) value = value * 256 + bytes[offset + index];
  return { value, length };
}

/** ADTS (raw AAC stream): 12-bit sync, layer 00, a valid sampling-frequency index. */
function isAdtsHeader(bytes: Uint8Array, offset: number): boolean {
  if (bytes.length < offset + 4) return false;
  if (bytes[offset] !== 0xff || (bytes[offset + 1] & 0xf6) !== 0xf0) return false;
  const samplingFrequencyIndex = (bytes[offset + 2] >> 2) & 0x0f;
  return samplingFrequencyIndex <= 12;
}

/** MPEG-1/2/2.5 audio frame header: 11-bit sync, and none of the reserved version, layer, bit rate or rate values. */
function isMpegAudioFrameHeader(bytes: Uint8Array, offset: number): boolean {
  if (bytes.length < offset + 4) return false;
  if (bytes[offset] !== 0xff || (bytes[offset + 1] & 0xe0) !== 0xe0) return false;
  const version = (bytes[offset + 1] >> 3) & 0x03;
  const layer = (bytes[offset + 1] >> 1) & 0x03;
  const bitrateIndex = (bytes[offset + 2] >> 4) & 0x0f;
  const sampleRateIndex = (bytes[offset + 2] >> 2) & 0x03;
  return version !== 0b01 && layer !== 0b00 && bitrateIndex !== 0x0f && sampleRateIndex !== 0b11;
}

function startsWithAscii(bytes: Uint8Array, offset: number, text: string): boolean {
  if (bytes.length < offset + text.length) return false;
  for (let index = 0; index < text.length; index++) if (bytes[offset + index] !== text.charCodeAt(index)) return false;
  return true;
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length));
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] << 24) >>> 0) + (bytes[offset + 1] << 16) + (bytes[offset + 2] << 8) + bytes[offset + 3];
}
