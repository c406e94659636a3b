import type { SourceType } from "../../domain/passage";
import type { DocumentMaterial, NoteMaterial, PassageDraft } from "../../domain/passage-builder";

/** A note as the media service holds it now, with the course it belongs to. */
export interface CurrentNote extends NoteMaterial {
  courseId: string;
  /** When the note last changed (its version). */
  updatedAt: Date;
}

/** A processed document's text by page as the documents service holds it now, with its course. */
export interface CurrentDocument extends DocumentMaterial {
  courseId: string;
}

/** The user's notes (media service). */
export interface NoteSource {
  /** The note's current state; null when it does not exist (or is another user's). */
  getNote(userId: string, noteId: string): Promise<CurrentNote | null>;
}

/** What the documents service says of a document: its text, that it has none (yet), or that it does not exist. */
export type DocumentText = { found: CurrentDocument } | { noText: true } | { gone: true };

/** The user's documents (documents service). */
export interface DocumentSource {
  /**
   * The document's current text; `noText` while it is not processed or when its processing failed; `gone` when it
   * does not exist (or is another user's).
   */
  getDocumentText(userId: string, documentId: string): Promise<DocumentText>;
}

export interface PassageOwner {
  userId: string;
  courseId: string;
}

export interface IndexedSource {
  sourceType: SourceType;
  sourceId: string;
}

/** The write side of the passage index. */
export interface PassageStore {
  /**
   * Replaces every passage of the source by the drafts, in one transaction (no reader sees half of either), unless
   * the source was deleted or passages of a newer `version` of it are in place: then nothing changes and it answers
   * false. A null version (a document: never changed once read) is applied unless the source was deleted.
   */
  replaceSourcePassages(
    owner: PassageOwner,
    sourceType: SourceType,
    sourceId: string,
    drafts: readonly PassageDraft[],
    version: Date | null,
  ): Promise<boolean>;
  /** Drops the source's passages for good (a later write for it changes nothing); answers how many there were. */
  deleteSource(sourceType: SourceType, sourceId: string): Promise<number>;
  /** Drops the user's passages and chat sessions (with their messages) of the course. */
  deleteCourse(userId: string, courseId: string): Promise<{ passages: number; sessions: number }>;
  /** The sources holding passages last written before `before` (one user's or everyone's), for the reindex. */
  sourcesIndexedBefore(query: { userId?: string; before: Date }): Promise<IndexedSource[]>;
}

/** A note or document the owning service lists, for the reindex. */
export interface ListedSource extends IndexedSource {
  userId: string;
}

/** Pages through every note and document the owning services hold (one user's or everyone's). */
export interface SourceCatalogue {
  list(
    sourceType: SourceType,
    query: { userId?: string; pageToken?: string; pageSize: number },
  ): Promise<{ sources: ListedSource[]; nextPageToken?: string }>;
}
