import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import type { Note, NoteDetails } from "../domain/note";
import type { NoteRepository } from "./ports/note-repository.port";

export class GetNote {
  constructor(private readonly notes: Pick<NoteRepository, "findOwned" | "findOwnedDetails">) {}

  /** The user's note with segments and attachments; another user's note or an unknown id is NOT_FOUND alike. */
  async execute(userId: string, noteId: string): Promise<NoteDetails> {
    requireUserId(userId);
    const note = isUuid(noteId) ? await this.notes.findOwnedDetails(userId, noteId) : null;
    if (!note) throw AppError.notFound("Note");
    return note;
  }

  /** The user's note without its rows. */
  async summary(userId: string, noteId: string): Promise<Note> {
    requireUserId(userId);
    const note = isUuid(noteId) ? await this.notes.findOwned(userId, noteId) : null;
    if (!note) throw AppError.notFound("Note");
    return note;
  }
}
