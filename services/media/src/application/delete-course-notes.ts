import { isUuid, requireUserId } from "@study/platform/ids";
import { planNoteDeletion } from "./delete-note";
import type { NoteRepository } from "./ports/note-repository.port";

/**
 * A course was deleted: its notes go too, each like a DeleteNote (active imports cancelled, NoteDeleted with
 * the storage keys). Each note is deleted in its own transaction; a repeat deletes what is left, so a
 * redelivered event or a retry after a failure half-way has no second effect.
 */
export class DeleteCourseNotes {
  constructor(private readonly notes: NoteRepository) {}

  /** Returns how many notes were deleted. */
  async execute(userId: string, courseId: string): Promise<number> {
    requireUserId(userId);
    if (!isUuid(courseId)) return 0;
    let deleted = 0;
    for (const noteId of await this.notes.listIdsOfCourse(userId, courseId)) {
      if (await this.notes.deleteOwned(userId, noteId, planNoteDeletion(new Date()))) deleted += 1;
    }
    return deleted;
  }
}
