/**
 * The name of a downloaded file: Content-Disposition's `filename*` (RFC 6266 / 5987), then its `filename`,
 * then the last segment of the URL's path; made safe to show and to use as a single path segment.
 */
export function downloadFileName(contentDisposition: string | undefined, urls: URL[]): string {
  const fromHeader = contentDisposition ? fileNameFromContentDisposition(contentDisposition) : null;
  if (fromHeader) return fromHeader;
  for (const url of urls) {
    const fromPath = sanitizeFileName(safeDecode(url.pathname.split("/").pop() ?? ""));
    if (fromPath) return fromPath;
  }
  return "download";
}

export function fileNameFromContentDisposition(header: string): string | null {
  const parameters = new Map<string, string>();
  for (const match of header.matchAll(/;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g)) {
    const value = match[2].trim();
    parameters.set(match[1].toLowerCase(), value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value);
  }
  const extended = parameters.get("filename*");
  if (extended) {
    const parts = /^([^']*)'[^']*'(.*)$/.exec(extended);
    if (parts) {
      const decoded = decodeExtendedValue(parts[1], parts[2]);
      const name = decoded === null ? null : sanitizeFileName(decoded);
      if (name) return name;
    }
  }
  const plain = parameters.get("filename");
  return plain ? sanitizeFileName(plain) : null;
}

function decodeExtendedValue(charset: string, encoded: string): string | null {
  try {
    if (charset.toLowerCase() === "utf-8") return decodeURIComponent(encoded);
    // ISO-8859-1 (the only other charset RFC 5987 requires): each %XX is one byte, one character.
    return encoded.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  } catch {
    return null;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Keeps the last path component, drops control characters, and refuses `.`/`..`; null when nothing is left. */
export function sanitizeFileName(name: string): string | null {
  const lastComponent = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex -- control characters are what this drops
  const cleaned = lastComponent.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (!cleaned || /^\.+$/.test(cleaned)) return null;
  return [...cleaned].slice(0, 200).join("");
}
