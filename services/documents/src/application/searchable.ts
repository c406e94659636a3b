import type { PayloadOf } from "@study/events/envelope";
import type { Document } from "../domain/document";

/** The indexing contract's record (study.search.v1.Searchable), as the events and SearchableSourceService carry it. */
export type Searchable = NonNullable<PayloadOf<"documentProcessed">["searchable"]>;

/**
 * study.search.v1.SearchableType.SEARCHABLE_TYPE_DOCUMENT. Use cases may not import @study/contracts (see
 * .dependency-cruiser.cjs), so this is the enum's wire number, which proto never changes: the type accepts only
 * numbers of the enum, and test/unit/searchable.test.ts pins this one to its name.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_DOCUMENT: Searchable["type"] = 6;

/** Text given to search per document: enough for universal search to find it by its content, bounded. */
export const SEARCHABLE_CONTENT_CHARS = 100_000;

/**
 * A document as search indexes it (the one builder of the events and SearchableSourceService): the title; tags,
 * type and file name as keywords; the description; the extracted text (its first 100 000 characters) as content;
 * status COMPLETED, PROCESSING (pending included) or FAILED; facts for the result (type, format, pages, words).
 */
export function toSearchable(document: Document): Searchable {
  const metadata: Record<string, string> = {
    documentType: document.documentType,
    format: document.format,
    fileName: document.fileName,
    pageCount: String(document.pageCount),
    wordCount: String(document.wordCount),
  };
  if (document.author !== null) metadata.author = document.author;
  return {
    type: SEARCHABLE_TYPE_DOCUMENT,
    id: document.id,
    userId: document.userId,
    courseId: document.courseId,
    title: document.title,
    keywords: [...document.tags, document.documentType, document.fileName],
    description: document.description ?? "",
    content: (document.extractedText ?? "").slice(0, SEARCHABLE_CONTENT_CHARS),
    status: document.status === "COMPLETED" ? "COMPLETED" : document.status === "FAILED" ? "FAILED" : "PROCESSING",
    metadata,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
  };
}
