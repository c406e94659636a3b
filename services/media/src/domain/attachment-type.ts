import { AppError } from "@study/platform/errors";

/**
 * Files a note accepts as attachments (spec: images PNG, JPG, JPEG, GIF, WebP; documents PDF, DOC, DOCX, TXT;
 * presentations PPT, PPTX; spreadsheets XLS, XLSX, CSV) with the size limit of each category (images 10 MB,
 * documents 25 MB, presentations 25 MB, spreadsheets 10 MB), and the check of the content's first bytes.
 */
export type AttachmentCategory = "image" | "document" | "presentation" | "spreadsheet";

const MB = 1024 * 1024;
export const ATTACHMENT_SIZE_LIMITS: Record<AttachmentCategory, number> = {
  image: 10 * MB,
  document: 25 * MB,
  presentation: 25 * MB,
  spreadsheet: 10 * MB,
};

/** How the content starts: a magic number, a ZIP container (OOXML), an OLE2 compound file, or plain text. */
type Signature = "png" | "jpeg" | "gif" | "webp" | "pdf" | "zip" | "ole" | "text";

interface AttachmentType {
  extension: string;
  mimeType: string;
  category: AttachmentCategory;
  signature: Signature;
}

export const ATTACHMENT_TYPES: readonly AttachmentType[] = [
  { extension: "png", mimeType: "image/png", category: "image", signature: "png" },
  { extension: "jpg", mimeType: "image/jpeg", category: "image", signature: "jpeg" },
  { extension: "jpeg", mimeType: "image/jpeg", category: "image", signature: "jpeg" },
  { extension: "gif", mimeType: "image/gif", category: "image", signature: "gif" },
  { extension: "webp", mimeType: "image/webp", category: "image", signature: "webp" },
  { extension: "pdf", mimeType: "application/pdf", category: "document", signature: "pdf" },
  { extension: "doc", mimeType: "application/msword", category: "document", signature: "ole" },
  { extension: "docx", mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", category: "document", signature: "zip" },
  { extension: "txt", mimeType: "text/plain", category: "document", signature: "text" },
  { extension: "ppt", mimeType: "application/vnd.ms-powerpoint", category: "presentation", signature: "ole" },
  {
    extension: "pptx",
    mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    category: "presentation",
    signature: "zip",
  },
  { extension: "xls", mimeType: "application/vnd.ms-excel", category: "spreadsheet", signature: "ole" },
  { extension: "xlsx", mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", category: "spreadsheet", signature: "zip" },
  { extension: "csv", mimeType: "text/csv", category: "spreadsheet", signature: "text" },
];

export const ATTACHMENT_DETECTION_BYTES = 4096;

const extensionOf = (fileName: string) => {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? "" : fileName.slice(dot + 1).toLowerCase();
};

export function unexpectedAttachment(message: string): AppError {
  return new AppError("validation", "UNEXPECTED_FILE", message, { details: [{ field: "file", message }] });
}

/** The attachment type a file name names (by extension); UNEXPECTED_FILE for anything else. */
export function attachmentTypeOf(fileName: string): AttachmentType {
  const type = ATTACHMENT_TYPES.find((candidate) => candidate.extension === extensionOf(fileName));
  if (!type) {
    throw unexpectedAttachment(`Unsupported attachment type: expected ${ATTACHMENT_TYPES.map((t) => t.extension.toUpperCase()).join(", ")}`);
  }
  return type;
}

const startsWith = (bytes: Uint8Array, offset: number, values: number[]) =>
  bytes.length >= offset + values.length && values.every((value, index) => bytes[offset + index] === value);
const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

function matches(signature: Signature, bytes: Uint8Array): boolean {
  switch (signature) {
    case "png":
      return startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case "jpeg":
      return startsWith(bytes, 0, [0xff, 0xd8, 0xff]);
    case "gif":
      return startsWith(bytes, 0, ascii("GIF87a")) || startsWith(bytes, 0, ascii("GIF89a"));
    case "webp":
      return startsWith(bytes, 0, ascii("RIFF")) && startsWith(bytes, 8, ascii("WEBP"));
    case "pdf":
      return startsWith(bytes, 0, ascii("%PDF-"));
    case "zip":
      return startsWith(bytes, 0, [0x50, 0x4b, 0x03, 0x04]);
    case "ole":
      return startsWith(bytes, 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    case "text":
      // Text: no NUL bytes and valid UTF-8 (a multi-byte character cut at the end of the sample is fine).
      if (bytes.includes(0)) return false;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, Math.max(0, bytes.length - 3)));
        return true;
      } catch {
        return false;
      }
  }
}

/** Checks that the content's first bytes fit the type its name claims; UNEXPECTED_FILE otherwise. */
export function assertAttachmentContent(type: AttachmentType, firstBytes: Uint8Array): void {
  if (firstBytes.length === 0 || !matches(type.signature, firstBytes)) {
    throw unexpectedAttachment(`The file's content is not a ${type.extension.toUpperCase()} file`);
  }
}
