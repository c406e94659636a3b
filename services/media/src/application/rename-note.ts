import { AppError } from "@study/platform/errors";
import { renameNote, type Note } from "../domain/note";
import type { GetNote } from "./get-note";
import { noteUpdated } from "./media-events";
import type { NoteRepository } from "./ports/note-repository.port";

export class RenameNote {
  constructor(
    private readonly notes: Pick<NoteRepository, "saveEdits">,
    private readonly getNote: GetNote,
  ) {}

  async execute(userId: string, noteId: string, title: string): Promise<Note> {
    const current = await this.getNote.summary(userId, noteId);
    const saved = await this.notes.saveEdits(renameNote(current, title, new Date()), (note) => [noteUpdated(note)], ["title"]);
    if (!saved) throw AppError.notFound("Note");
    return saved;
  }
}
