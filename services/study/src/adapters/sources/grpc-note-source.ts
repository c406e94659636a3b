import { media } from "@study/contracts";
import { createClient } from "@study/grpc";
import { AppError, required } from "@study/platform/errors";
import type { CurrentNote, NoteSource } from "../../application/ports/generation-sources.port";
import type { TranscriptionStatus } from "../../domain/generation-request";

const USER_NOTE_TYPES: Partial<Record<media.UserNoteContentType, string>> = {
  [media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_TEXT]: "text",
  [media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_URL]: "url",
  [media.UserNoteContentType.USER_NOTE_CONTENT_TYPE_FILE]: "file",
};

const TRANSCRIPTION_STATUSES: Partial<Record<media.TranscriptionStatus, TranscriptionStatus>> = {
  [media.TranscriptionStatus.TRANSCRIPTION_STATUS_PENDING]: "PENDING",
  [media.TranscriptionStatus.TRANSCRIPTION_STATUS_PROCESSING]: "PROCESSING",
  [media.TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED]: "COMPLETED",
  [media.TranscriptionStatus.TRANSCRIPTION_STATUS_FAILED]: "FAILED",
};

/** The note as generation reads it: transcript, segments with the recogniser's confidence, summary, the user's notes. */
export function toCurrentNote(note: media.Note): CurrentNote {
  const transcriptionStatus = TRANSCRIPTION_STATUSES[note.transcriptionStatus];
  if (!transcriptionStatus)
    throw new AppError("internal", "INTERNAL_ERROR", `Note ${note.id} has an unknown transcription status (${note.transcriptionStatus})`);
  return {
    noteId: note.id,
    courseId: note.courseId,
    title: note.title,
    transcriptionStatus,
    transcript: note.content ?? "",
    summary: note.summary,
    // The confidence lets the offline generator leave garbled speech out; absent when media has none (0 is a score).
    segments: note.transcriptSegments.map((segment) => ({
      text: segment.text,
      startTime: segment.startTime,
      endTime: segment.endTime,
      ...(segment.confidence === undefined ? {} : { confidence: segment.confidence }),
    })),
    userNotes: note.userNotes.map((entry) => ({
      timestamp: entry.timestamp,
      content: entry.content,
      contentType: USER_NOTE_TYPES[entry.contentType] ?? "text",
    })),
  };
}

/** The media service's GetNote (NOT_FOUND, passed on, for an unknown note or another user's). */
export class GrpcNoteSource implements NoteSource {
  private readonly client;

  constructor(address: string, deadlineMs = 10_000) {
    this.client = createClient(media.MediaServiceClient, media.MediaServiceService, address, { deadlineMs });
  }

  async getNote(userId: string, noteId: string): Promise<CurrentNote> {
    const reply = await this.client.getNote({ userId, noteId });
    return toCurrentNote(required(reply.note, "note in GetNote reply"));
  }

  close(): void {
    this.client.close();
  }
}
