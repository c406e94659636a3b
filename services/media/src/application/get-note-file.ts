import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import type { NoteFile } from "../domain/note";
import type { NoteRepository } from "./ports/note-repository.port";

export class GetNoteFile {
  constructor(private readonly notes: NoteRepository) {}

  /**
   * The stored file under `storageKey` if it is the audio or an attachment of one of the user's notes. Another
   * user's file, a deleted note's file (its object may still await removal) and an unknown key are NOT_FOUND alike.
   */
  async execute(userId: string, storageKey: string): Promise<NoteFile> {
    requireUserId(userId);
    const file = await this.notes.findOwnedFile(userId, storageKey);
    if (!file) throw AppError.notFound("File");
    return file;
  }
}
