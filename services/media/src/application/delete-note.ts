import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { cancelJob, CANCELLED_WITH_NOTE } from "../domain/import-job";
import type { NoteDeletion, NoteDeletionPlan, NoteRepository } from "./ports/note-repository.port";
import { noteDeleted } from "./media-events";

/**
 * Deletes a note with its transcript segments, user notes and attachment rows. An import of the note that
 * is still PENDING or IN_PROGRESS is cancelled in the same transaction (the worker sees CANCELLED and stops).
 * Stored files are not touched here: NoteDeleted names their storage keys, and the media worker deletes them
 * when it consumes the event (through the outbox, so a deleted note's files are never forgotten).
 */
export class DeleteNote {
  constructor(private readonly notes: NoteRepository) {}

  async execute(userId: string, noteId: string): Promise<NoteDeletion> {
    requireUserId(userId);
    const deleted = isUuid(noteId) ? await this.notes.deleteOwned(userId, noteId, planNoteDeletion(new Date())) : null;
    if (!deleted) throw AppError.notFound("Note");
    return deleted;
  }
}

/** Cancels the note's active imports and announces the deletion with the storage keys to clean up. */
export const planNoteDeletion =
  (now: Date) =>
  (deletion: NoteDeletion): NoteDeletionPlan => ({
    jobs: deletion.activeJobs.map((job) => cancelJob(job, now, CANCELLED_WITH_NOTE)),
    events: [noteDeleted(deletion.note, deletion.storageKeys)],
  });
