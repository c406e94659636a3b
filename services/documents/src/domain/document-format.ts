/**
 * The file formats the documents service accepts, decided from the bytes only (never the name or the client's
 * content type): see the FormatDetector port.
 */
export const DOCUMENT_FORMATS = [
  "PDF",
  "DOC",
  "DOCX",
  "PPT",
  "PPTX",
  "XLS",
  "XLSX",
  "CSV",
  "TXT",
  "MD",
  "RTF",
  "JPEG",
  "PNG",
  "GIF",
  "WEBP",
] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

/** The spec's documentType values (a document's kind: its format, or a role such as SYLLABUS). */
export const DOCUMENT_TYPES = [
  "PDF",
  "DOCX",
  "DOC",
  "PPTX",
  "PPT",
  "XLSX",
  "XLS",
  "TXT",
  "SYLLABUS",
  "TEXTBOOK",
  "HANDOUT",
  "ASSIGNMENT",
  "OTHER",
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

const MIME_TYPES: Record<DocumentFormat, string> = {
  PDF: "application/pdf",
  DOC: "application/msword",
  DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  PPT: "application/vnd.ms-powerpoint",
  PPTX: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  XLS: "application/vnd.ms-excel",
  XLSX: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  CSV: "text/csv",
  TXT: "text/plain",
  MD: "text/markdown",
  RTF: "application/rtf",
  JPEG: "image/jpeg",
  PNG: "image/png",
  GIF: "image/gif",
  WEBP: "image/webp",
};

/** The content type stored and served for a format (the detected one, not the client's). */
export const mimeTypeOfFormat = (format: DocumentFormat): string => MIME_TYPES[format];

/**
 * The documentType a document gets when the upload names none: the format where the spec has a value for it,
 * TXT for Markdown (text), OTHER for CSV, RTF and images (the spec's list has no such values).
 */
export function documentTypeOfFormat(format: DocumentFormat): DocumentType {
  switch (format) {
    case "PDF":
    case "DOC":
    case "DOCX":
    case "PPT":
    case "PPTX":
    case "XLS":
    case "XLSX":
    case "TXT":
      return format;
    case "MD":
      return "TXT";
    case "CSV":
    case "RTF":
    case "JPEG":
    case "PNG":
    case "GIF":
    case "WEBP":
      return "OTHER";
  }
}

/** Formats read by OCR only (no text layer at all). */
export const isImageFormat = (format: DocumentFormat): boolean => format === "JPEG" || format === "PNG" || format === "GIF" || format === "WEBP";

/**
 * Formats a browser may show in place when the owner downloads the file (`Content-Disposition: inline`): PDF,
 * raster images and plain text, which browsers render without running anything. Every other format — office
 * files, RTF, CSV, Markdown — is saved (`attachment`). SVG (scripts) is never accepted as a document, and would
 * be saved too.
 */
const SHOWN_INLINE: ReadonlySet<DocumentFormat> = new Set(["PDF", "JPEG", "PNG", "GIF", "WEBP", "TXT"]);

export const downloadDispositionOf = (format: DocumentFormat): "inline" | "attachment" => (SHOWN_INLINE.has(format) ? "inline" : "attachment");
