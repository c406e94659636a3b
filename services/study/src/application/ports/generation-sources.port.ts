import type { GenerationNote } from "../../domain/generation-request";
import type { SourceDocument } from "../../domain/study-material";

/**
 * The owners of what a generation reads, asked as the user. Each answers as its owner does: an AppError NOT_FOUND for
 * an unknown record or another user's, which the generation passes on.
 */

/** The user's courses (courses service). */
export interface CourseSource {
  /** The course's name (context for the generator); NOT_FOUND unless it is the user's. */
  courseName(userId: string, courseId: string): Promise<string>;
}

/** A note as the media service holds it now: its content, transcription status and course. */
export interface CurrentNote extends GenerationNote {
  courseId: string;
}

/** The user's notes (media service). */
export interface NoteSource {
  /** The note now; NOT_FOUND unless it is the user's. */
  getNote(userId: string, noteId: string): Promise<CurrentNote>;
}

/** A processed document's text by page as the documents service holds it now, with its course. */
export interface CurrentDocument extends SourceDocument {
  courseId: string;
}

/** The user's documents (documents service). */
export interface DocumentSource {
  /**
   * The document's text now; NOT_FOUND unless it is the user's; precondition DOCUMENT_NOT_PROCESSED while its text
   * is not extracted or when its extraction failed (the documents service's answer, passed on as it is).
   */
  getDocumentText(userId: string, documentId: string): Promise<CurrentDocument>;
}

export interface GenerationSourcePorts {
  courses: CourseSource;
  notes: NoteSource;
  documents: DocumentSource;
}
