import type { EventEnvelope } from "@study/events/envelope";
import type { ImportJob } from "../../domain/import-job";
import type { Attachment, Note, NoteDetails, NoteFile } from "../../domain/note";

export interface NotePage {
  /** Newest first. */
  notes: Note[];
  /** Notes matching the filter, before the page. */
  total: number;
}

/** What goes when a note is deleted, read inside the deleting transaction (nothing can be added meanwhile). */
export interface NoteDeletion {
  note: Note;
  /** Stored objects of the note: its audio and every attachment. */
  storageKeys: string[];
  /** Import jobs of the note still PENDING or IN_PROGRESS. */
  activeJobs: ImportJob[];
}

/** The decision about a deletion: the jobs to store changed (e.g. cancelled) and the events to enqueue. */
export interface NoteDeletionPlan {
  jobs: ImportJob[];
  events: EventEnvelope[];
}

/**
 * Persistence of notes. Every write takes the events it causes: the adapter stores them in the outbox in
 * the same transaction as the change.
 */
/** What the user edits of a note. */
export type EditableNoteField = "title" | "userNotes";

export interface NoteRepository {
  listOwned(userId: string, query: { courseId?: string; limit: number; offset: number }): Promise<NotePage>;
  /** The note if it exists and belongs to the user. */
  findOwned(userId: string, noteId: string): Promise<Note | null>;
  /** The note with its transcript segments (in order) and attachments (oldest first). */
  findOwnedDetails(userId: string, noteId: string): Promise<NoteDetails | null>;
  /**
   * Stores what the user edits — only the `fields` named, so that a concurrent edit of the other one (a rename
   * while the user notes are saved) is not overwritten with what `note` held when it was read — with a new
   * updatedAt (the note's, or just after the stored one if that is not older), and the events `events` builds
   * from the note as stored, which may hold the pipeline's and other edits' changes made since `note` was read.
   * Returns the stored note; null when the note no longer exists.
   */
  saveEdits(note: Note, events: (saved: Note) => EventEnvelope[], fields: readonly EditableNoteField[]): Promise<Note | null>;
  /**
   * Deletes the user's note with its segments and attachments in one transaction: locks its active jobs and
   * the note, lets `plan` decide the job changes and events from what goes, stores them, deletes. Null when
   * there was no such note.
   */
  deleteOwned(userId: string, noteId: string, plan: (deletion: NoteDeletion) => NoteDeletionPlan): Promise<NoteDeletion | null>;
  /** Adds an attachment to the user's note (and touches its updatedAt); false when there is no such note. */
  addAttachment(userId: string, attachment: Attachment): Promise<boolean>;
  /** The stored file under `storageKey` when it is the audio or an attachment of one of the user's notes. */
  findOwnedFile(userId: string, storageKey: string): Promise<NoteFile | null>;
  /**
   * Stores the content hash of the user's note's uploaded audio and returns the id of the user's earliest other
   * note with the same hash (oldest first), or null.
   */
  recordContentHash(userId: string, noteId: string, contentHash: string): Promise<string | null>;
  /** The user's notes of a course, for deleting them when the course goes. */
  listIdsOfCourse(userId: string, courseId: string): Promise<string[]>;
  /** Up to `limit` notes (of one user, or of all when userId is absent) with ids after `afterId`, in id order. */
  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Note[]>;
}
