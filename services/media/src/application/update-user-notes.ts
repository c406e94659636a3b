import { AppError } from "@study/platform/errors";
import { replaceUserNotes, type Note, type UserNoteDraft } from "../domain/note";
import type { GetNote } from "./get-note";
import { noteUpdated } from "./media-events";
import type { NoteRepository } from "./ports/note-repository.port";

export class UpdateUserNotes {
  constructor(
    private readonly notes: Pick<NoteRepository, "saveEdits">,
    private readonly getNote: GetNote,
  ) {}

  /** Replaces the note's user notes with the given list, stored sorted by timestamp. */
  async execute(userId: string, noteId: string, drafts: UserNoteDraft[]): Promise<Note> {
    const current = await this.getNote.summary(userId, noteId);
    const saved = await this.notes.saveEdits(replaceUserNotes(current, drafts, new Date()), (note) => [noteUpdated(note)], ["userNotes"]);
    if (!saved) throw AppError.notFound("Note");
    return saved;
  }
}
