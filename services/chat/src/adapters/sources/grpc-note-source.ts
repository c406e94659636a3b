import { media } from "@study/contracts";
import { createClient } from "@study/grpc";
import { AppError, required } from "@study/platform/errors";
import type { CurrentNote, NoteSource } from "../../application/ports/material-sources.port";

const isNotFound = (error: unknown) => error instanceof AppError && error.kind === "not_found";

/** The note as chat indexes it: transcript segments, summary, the user's notes (a file's link is not material). */
export function toCurrentNote(note: media.Note): CurrentNote {
  return {
    noteId: note.id,
    courseId: note.courseId,
    title: note.title,
    segments: note.transcriptSegments.map((segment) => ({ start: segment.startTime, text: segment.text })),
    summary: note.summary ?? null,
    userNotes: note.userNotes
      .filter((entry) => entry.contentType !== media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_FILE)
      .map((entry) => ({ content: entry.content, timestamp: entry.timestamp })),
    content: note.content ?? null,
    updatedAt: required(note.updatedAt, "note's updatedAt"),
  };
}

/** The media service's GetNote (NOT_FOUND for an unknown note or another user's). */
export class GrpcNoteSource implements NoteSource {
  private readonly client;

  constructor(address: string, deadlineMs = 10_000) {
    this.client = createClient(media.MediaServiceClient, media.MediaServiceService, address, { deadlineMs });
  }

  async getNote(userId: string, noteId: string): Promise<CurrentNote | null> {
    try {
      const reply = await this.client.getNote({ userId, noteId });
      return toCurrentNote(required(reply.note, "note in GetNote reply"));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  close(): void {
    this.client.close();
  }
}
