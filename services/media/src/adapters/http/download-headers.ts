import type { ByteRange } from "../../application/ports/file-storage.port";

/**
 * The one byte range a `Range` header asks of a file of `size` bytes (RFC 9110 §14): `bytes=first-last`,
 * `bytes=first-` or `bytes=-suffixLength`. Null when the whole file is to be sent: no header, another unit, a
 * malformed header, or several ranges (a server may ignore Range; players ask for one). "unsatisfiable" when
 * the range holds no byte of the file (416).
 */
export function requestedByteRange(header: string | undefined, size: number): ByteRange | "unsatisfiable" | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.replace(/\s+/g, "") ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffixLength = Number(match[2]);
    if (suffixLength === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffixLength), end: size - 1 };
  }
  const start = Number(match[1]);
  const last = match[2] === "" ? Infinity : Number(match[2]);
  if (last < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(last, size - 1) };
}

/** RFC 8187 `attr-char`s are kept; everything else is percent-encoded (encodeURIComponent leaves `'()*`). */
const encodeExtValue = (text: string) => encodeURIComponent(text).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * `Content-Disposition` naming the file: an ASCII fallback in `filename` (for old clients) and the exact
 * name, UTF-8 encoded, in `filename*` (RFC 6266).
 */
export function contentDisposition(type: "inline" | "attachment", fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
