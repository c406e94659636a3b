import type { MaterialOrigin } from "../../domain/flashcard-set";
import type { SourceReference } from "../../domain/study-material";
import type { MaterialFilter } from "../../application/ports/study-repositories.port";

/** The columns every material table shares, as stored. */
export function originColumns(material: MaterialOrigin) {
  return {
    id: material.id,
    userId: material.userId,
    courseId: material.courseId,
    noteId: material.noteId,
    noteTitle: material.noteTitle,
    noteIds: material.noteIds,
    documentIds: material.documentIds,
    contentHash: material.contentHash,
    title: material.title,
    description: material.description,
    difficulty: material.difficulty,
    generator: material.generator,
    createdAt: material.createdAt,
    updatedAt: material.updatedAt,
  };
}

export const sourceColumns = (source: SourceReference | null) => ({
  sourceNoteId: source?.noteId ?? null,
  sourceStartTime: source?.startTime ?? null,
  sourceDocumentId: source?.documentId ?? null,
  sourcePage: source?.page ?? null,
});

interface SourceRow {
  sourceNoteId: string | null;
  sourceStartTime: number | null;
  sourceDocumentId: string | null;
  sourcePage: number | null;
}

/**
 * A source link survives its note's deletion as a bare time (noteId null): then there is nothing to jump to.
 * A link to a document page is the document and its page.
 */
export function sourceFromColumns(row: SourceRow): SourceReference | null {
  if (row.sourceNoteId !== null) return { noteId: row.sourceNoteId, startTime: row.sourceStartTime };
  if (row.sourceDocumentId !== null) return { documentId: row.sourceDocumentId, page: row.sourcePage };
  return null;
}

/** The where-clause of an owner-scoped material list. */
export function materialWhere(userId: string, filter: MaterialFilter) {
  return {
    userId,
    ...(filter.courseId ? { courseId: filter.courseId } : {}),
    ...(filter.noteId ? { noteIds: { has: filter.noteId } } : {}),
  };
}

/** The where-clause of a ListSearchables page: one user's or everyone's, after the previous page's last id. */
export function pageAfterWhere(query: { userId?: string; afterId: string | null }) {
  return { ...(query.userId === undefined ? {} : { userId: query.userId }), ...(query.afterId === null ? {} : { id: { gt: query.afterId } }) };
}

export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "asc" as const }];
