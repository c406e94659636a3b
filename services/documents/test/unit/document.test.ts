import { documents as api, indexing } from "@study/contracts";
import { SEARCHABLE_CONTENT_CHARS, SEARCHABLE_TYPE_DOCUMENT, toSearchable } from "../../src/application/searchable";
import { documentTypeFromProto, documentTypeToProto, toProtoDocument } from "../../src/adapters/grpc/proto-mapping";
import { repeatedTags } from "../../src/adapters/http/upload-routes";
import { countWords, failureReasonOf, joinPages, pagesOf, parseTags, validateUploadFields, type Document } from "../../src/domain/document";
import { DOCUMENT_FORMATS, DOCUMENT_TYPES, documentTypeOfFormat, mimeTypeOfFormat } from "../../src/domain/document-format";

const COURSE = "0196a000-0000-7000-8000-0000000000c1";
const document: Document = {
  id: "0196a000-0000-7000-8000-000000000001",
  userId: "alice",
  courseId: COURSE,
  title: "Plate tectonics",
  fileName: "tectonics.pdf",
  fileSize: 2048,
  format: "PDF",
  mimeType: "application/pdf",
  storageKey: "documents/alice/x/tectonics.pdf",
  description: "Week 3",
  documentType: "PDF",
  tags: ["geology"],
  status: "COMPLETED",
  failureReason: null,
  extractedText: "Page one text\n\nPage two text",
  pages: [
    { number: 1, startOffset: 0, endOffset: 13, ocr: false },
    { number: 2, startOffset: 15, endOffset: 28, ocr: true },
  ],
  author: "Ada",
  pageCount: 2,
  wordCount: 6,
  calendarEventsCreated: null,
  createdAt: new Date("2026-05-01T08:00:00Z"),
  updatedAt: new Date("2026-05-02T08:00:00Z"),
};

describe("document domain", () => {
  it("counts words as a reader does", () => {
    expect(countWords("Don't stop — the well-known 3 tests, naïve café!")).toBe(8);
    expect(countWords("  \n ")).toBe(0);
  });

  it("joins pages with spans that cut them back out, skipping empty pages", () => {
    const { text, spans } = joinPages([
      { number: 1, text: " alpha ", ocr: false },
      { number: 2, text: "", ocr: false },
      { number: 3, text: "beta", ocr: true },
    ]);
    expect(text).toBe("alpha\n\nbeta");
    expect(spans).toEqual([
      { number: 1, startOffset: 0, endOffset: 5, ocr: false },
      { number: 3, startOffset: 7, endOffset: 11, ocr: true },
    ]);
    expect(pagesOf({ extractedText: text, pages: spans })).toEqual([
      { number: 1, text: "alpha" },
      { number: 3, text: "beta" },
    ]);
  });

  it("reads tags from a JSON array or a comma list, and refuses anything else", () => {
    const violations: { field: string; message: string }[] = [];
    expect(parseTags('["a", " b ", "a"]', violations)).toEqual(["a", "b"]);
    expect(parseTags("x, y", violations)).toEqual(["x", "y"]);
    expect(parseTags(undefined, violations)).toEqual([]);
    expect(violations).toEqual([]);
    parseTags('["a", 2]', violations);
    parseTags(Array.from({ length: 21 }, (_, index) => `t${index}`).join(","), violations);
    parseTags("y".repeat(51), violations);
    expect(violations.map((violation) => violation.field)).toEqual(["tags", "tags", "tags"]);
  });

  it("defaults the title to the file name, shortened to 255 characters", () => {
    expect(validateUploadFields({ courseId: COURSE, title: "  " }, "notes.pdf").title).toBe("notes.pdf");
    expect(validateUploadFields({ courseId: COURSE }, `${"n".repeat(300)}.pdf`).title).toHaveLength(255);
  });

  it("maps every format to a content type and a default documentType", () => {
    for (const format of DOCUMENT_FORMATS) {
      expect(mimeTypeOfFormat(format)).toMatch(/^[a-z]+\/[\w.+-]+$/);
      expect(documentTypeOfFormat(format)).toBeTruthy();
    }
    expect(documentTypeOfFormat("MD")).toBe("TXT");
    expect(documentTypeOfFormat("JPEG")).toBe("OTHER");
  });

  it("keeps a failure reason on one bounded line", () => {
    expect(failureReasonOf("line one\n  line two ")).toBe("line one line two");
    expect(failureReasonOf("x".repeat(2000))).toHaveLength(1000);
    expect(failureReasonOf("   ")).toBe("The document could not be processed");
  });
});

describe("document as search and the API see it", () => {
  it("pins the searchable type to SEARCHABLE_TYPE_DOCUMENT", () => {
    expect(SEARCHABLE_TYPE_DOCUMENT).toBe(indexing.SearchableType.SEARCHABLE_TYPE_DOCUMENT);
  });

  it("indexes title, tags, type and file name as keywords and the text as content (bounded)", () => {
    expect(toSearchable(document)).toMatchObject({
      id: document.id,
      courseId: COURSE,
      title: "Plate tectonics",
      keywords: ["geology", "PDF", "tectonics.pdf"],
      description: "Week 3",
      content: document.extractedText,
      status: "COMPLETED",
      metadata: { documentType: "PDF", format: "PDF", pageCount: "2", wordCount: "6", author: "Ada" },
    });
    expect(toSearchable({ ...document, extractedText: "w ".repeat(SEARCHABLE_CONTENT_CHARS) }).content).toHaveLength(SEARCHABLE_CONTENT_CHARS);
    expect(toSearchable({ ...document, status: "PENDING" }).status).toBe("PROCESSING");
    expect(toSearchable({ ...document, status: "FAILED" }).status).toBe("FAILED");
  });

  it("carries the text and page spans only when asked", () => {
    const full = toProtoDocument(document, { withText: true });
    expect(full).toMatchObject({ processed: true, extractedText: document.extractedText, filePath: document.storageKey, pageCount: 2 });
    expect(full.pages).toHaveLength(2);
    expect(full.status).toBe(api.ProcessingStatus.PROCESSING_STATUS_COMPLETED);
    const listed = toProtoDocument({ ...document, status: "FAILED", failureReason: "Encrypted" }, { withText: false });
    expect(listed).toMatchObject({ processed: false, extractedText: undefined, pages: [], failureReason: "Encrypted" });
  });
});

describe("document types between the domain and the API's enum", () => {
  it("has a proto member for every type, and reads it back", () => {
    const members = Object.values(api.DocumentType).filter((value): value is api.DocumentType => typeof value === "number" && value > 0);
    expect(DOCUMENT_TYPES.map(documentTypeToProto)).toEqual(members);
    expect(members.map(documentTypeFromProto)).toEqual([...DOCUMENT_TYPES]);
  });

  it("reads UNSPECIFIED as no type and passes an unknown number on for the use case to refuse", () => {
    expect(documentTypeFromProto(api.DocumentType.DOCUMENT_TYPE_UNSPECIFIED)).toBeUndefined();
    expect(documentTypeFromProto(99 as api.DocumentType)).toBe("99");
  });
});

describe("tags of a multipart upload", () => {
  it("reads a repeated tags field (or tags[]) as one list, and leaves a single field as sent", () => {
    expect(repeatedTags({ tags: ["a", "b"] })).toEqual({ tags: '["a","b"]' });
    expect(repeatedTags({ "tags[]": ["solo"] })).toEqual({ tags: '["solo"]' });
    expect(repeatedTags({ tags: ["a, b"] })).toEqual({});
    expect(repeatedTags({})).toEqual({});
    const violations: { field: string; message: string }[] = [];
    expect(parseTags(repeatedTags({ tags: ["x", "y", "x"] }).tags, violations)).toEqual(["x", "y"]);
  });
});
