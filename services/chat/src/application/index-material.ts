import { documentPassages, notePassages } from "../domain/passage-builder";
import type { SourceType } from "../domain/passage";
import type { DocumentSource, NoteSource, PassageStore } from "./ports/material-sources.port";

// The indexing use cases take the source's current state from its owner instead of an event's payload: a
// redelivered event, or one that arrives after a newer one (an update overtaken by the delete, a transcription
// replayed after a rename), then writes what is true now rather than what the event once said. Each one is
// therefore idempotent and may run any number of times, in any order.

/** Makes the note's passages those of its current state (none once it is gone or while it has no text). */
export class IndexNote {
  constructor(
    private readonly notes: NoteSource,
    private readonly passages: PassageStore,
  ) {}

  /** Answers the number of passages the note has now. */
  async execute(userId: string, noteId: string): Promise<number> {
    const note = await this.notes.getNote(userId, noteId);
    if (!note) {
      await this.passages.deleteSource("note", noteId);
      return 0;
    }
    const drafts = notePassages(note);
    const applied = await this.passages.replaceSourcePassages({ userId, courseId: note.courseId }, "note", noteId, drafts, note.updatedAt);
    return applied ? drafts.length : 0;
  }
}

/** Makes the document's passages those of its current text (none once it is gone, or while it has no text). */
export class IndexDocument {
  constructor(
    private readonly documents: DocumentSource,
    private readonly passages: PassageStore,
  ) {}

  /** Answers the number of passages the document has now. */
  async execute(userId: string, documentId: string): Promise<number> {
    const text = await this.documents.getDocumentText(userId, documentId);
    if ("gone" in text) {
      await this.passages.deleteSource("document", documentId);
      return 0;
    }
    if ("noText" in text) {
      // Not processed yet, or failed: no passages (the owner is unused without any), but no tombstone either.
      await this.passages.replaceSourcePassages({ userId, courseId: "" }, "document", documentId, [], null);
      return 0;
    }
    const drafts = documentPassages(text.found);
    const applied = await this.passages.replaceSourcePassages({ userId, courseId: text.found.courseId }, "document", documentId, drafts, null);
    return applied ? drafts.length : 0;
  }
}

/** Drops a deleted note's or document's passages. */
export class ForgetSource {
  constructor(private readonly passages: PassageStore) {}

  execute(sourceType: SourceType, sourceId: string): Promise<number> {
    return this.passages.deleteSource(sourceType, sourceId);
  }
}

/** Drops what the user had in a deleted course: its passages and its chat sessions (with their messages). */
export class ForgetCourse {
  constructor(private readonly passages: PassageStore) {}

  execute(userId: string, courseId: string): Promise<{ passages: number; sessions: number }> {
    return this.passages.deleteCourse(userId, courseId);
  }
}
