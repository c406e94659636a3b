import { AppError } from "@study/platform/errors";
import { renameNote, type Note } from "../domain/note";
import type { GetNote } from "./get-note";
import { noteUpdated } from "./media-events";
import type { NoteRepository } from "./ports/note-repository.port";

export class RenameNote {
  constructor(
    private readonly notes: NoteRepository,
    private readonly getNote: GetNote,
  ) {}

  async execute(userId: string, noteId: string, title: string): Promise<Note> {
    const current = await this.getNote.summary(userId, noteId);
    const renamed = renameNote(current, title, new Date());
    if (!(await this.notes.saveEdits(renamed, [noteUpdated(renamed)]))) throw AppError.notFound("Note");
    return renamed;
  }
}
