import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { isContentHash } from "../domain/content-hash";
import type { NoteRepository } from "./ports/note-repository.port";

/**
 * After an audio upload created its note: keeps the file's content hash with the note and names the user's
 * earliest other note uploaded with the same content, if any (`duplicateOf`). The upload is kept either way — a
 * user may mean to upload a recording twice — but the answer says so. Other users' notes are never looked at.
 */
export class RecordUploadedContent {
  constructor(private readonly notes: Pick<NoteRepository, "recordContentHash">) {}

  async execute(userId: string, noteId: string, contentHash: string): Promise<{ duplicateOf: string | null }> {
    requireUserId(userId);
    if (!isContentHash(contentHash)) throw AppError.internal(`not a SHA-256 content hash: ${contentHash.slice(0, 80)}`);
    return { duplicateOf: await this.notes.recordContentHash(userId, noteId, contentHash) };
  }
}
