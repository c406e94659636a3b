import type { ImportJob, SpeedMultiplier } from "../../domain/import-job";
import {
  NOTE_SOURCES,
  USER_NOTE_CONTENT_TYPES,
  type Attachment,
  type Note,
  type NoteMetadata,
  type TranscriptSegment,
  type UserNote,
} from "../../domain/note";
import type { Prisma } from "../../generated/prisma/client";

/** Rows as Prisma returns them (the generated model types). */
export type NoteRow = Prisma.NoteGetPayload<object>;
export type ImportJobRow = Prisma.ImportJobGetPayload<object>;
export type SegmentRow = Prisma.TranscriptSegmentGetPayload<object>;
export type AttachmentRow = Prisma.AttachmentGetPayload<object>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const asString = (value: unknown) => (typeof value === "string" ? value : undefined);
const asNumber = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The metadata column, keeping only the known keys with the right types (the column is JSON). */
export function metadataFromJson(json: unknown): NoteMetadata {
  if (!isObject(json)) return {};
  const metadata: NoteMetadata = {};
  const source = asString(json.source);
  if (source && (NOTE_SOURCES as readonly string[]).includes(source)) metadata.source = source as NoteMetadata["source"];
  const text = ["originalUrl", "mimeType", "originalFilename", "language"] as const;
  for (const key of text) {
    const value = asString(json[key]);
    if (value !== undefined) metadata[key] = value;
  }
  const numbers = ["duration", "wordCount", "fileSize", "confidence"] as const;
  for (const key of numbers) {
    const value = asNumber(json[key]);
    if (value !== undefined) metadata[key] = value;
  }
  return metadata;
}

/** The user-notes column (written sorted by the domain). */
export function userNotesFromJson(json: unknown): UserNote[] {
  if (!Array.isArray(json)) return [];
  return json.filter(isObject).flatMap((entry) => {
    const timestamp = asNumber(entry.timestamp);
    const content = asString(entry.content);
    const contentType = asString(entry.contentType);
    if (timestamp === undefined || content === undefined || !contentType || !(USER_NOTE_CONTENT_TYPES as readonly string[]).includes(contentType))
      return [];
    return [{ timestamp, content, contentType: contentType as UserNote["contentType"] }];
  });
}

/** The user-notes column's JSON, field by field: an interface has no index signature, so Prisma's JSON type refuses it. */
export function userNotesToJson(notes: UserNote[]): Prisma.InputJsonArray {
  return notes.map(({ timestamp, content, contentType }) => ({ timestamp, content, contentType }));
}

export function toNote(row: NoteRow): Note {
  return {
    id: row.id,
    userId: row.userId,
    courseId: row.courseId,
    title: row.title,
    content: row.content,
    summary: row.summary,
    audioUrl: row.audioUrl,
    audioStorageKey: row.audioStorageKey,
    transcriptionStatus: row.transcriptionStatus,
    metadata: metadataFromJson(row.metadata),
    userNotes: userNotesFromJson(row.userNotes),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export const toSegment = (row: SegmentRow): TranscriptSegment => ({
  id: row.id,
  noteId: row.noteId,
  text: row.text,
  startTime: row.startTime,
  endTime: row.endTime,
  speaker: row.speaker,
  // NULL is "the engine gave none": the domain leaves the key out rather than holding null.
  ...(row.confidence !== null ? { confidence: row.confidence } : {}),
});

export const toAttachment = (row: AttachmentRow): Attachment => ({ ...row });

export const toJob = (row: ImportJobRow): ImportJob => ({ ...row, speedMultiplier: row.speedMultiplier as SpeedMultiplier });

/** Columns of a new note. */
export function noteData(note: Note): Prisma.NoteUncheckedCreateInput {
  return {
    ...note,
    metadata: note.metadata as Prisma.InputJsonObject,
    userNotes: userNotesToJson(note.userNotes),
  };
}

/** Columns a job's transitions change (what to import never changes). */
export function jobStateData(job: ImportJob): Prisma.ImportJobUncheckedUpdateManyInput {
  return {
    status: job.status,
    progress: job.progress,
    stage: job.stage,
    errorMessage: job.errorMessage,
    attempts: job.attempts,
    version: job.version,
    updatedAt: job.updatedAt,
    startedAt: job.startedAt,
    completedAt: job.completedAt,
  };
}

/** Columns the pipeline changes on a note (the user's edits are left alone). */
export function noteProcessingData(note: Note): Prisma.NoteUncheckedUpdateManyInput {
  return {
    transcriptionStatus: note.transcriptionStatus,
    content: note.content,
    summary: note.summary,
    audioUrl: note.audioUrl,
    audioStorageKey: note.audioStorageKey,
    metadata: note.metadata as Prisma.InputJsonObject,
    updatedAt: note.updatedAt,
  };
}

/**
 * Locks the note's row for the rest of the transaction and reads its version (updatedAt); null when there is no
 * such note (of that user, when one is named). Writers of a note take this lock first, so each builds its events
 * from the note as the previous writer left it.
 */
export async function lockNote(tx: Prisma.TransactionClient, noteId: string, userId?: string): Promise<{ updatedAt: Date } | null> {
  const rows = await tx.$queryRaw<{ updatedAt: Date }[]>`
    SELECT updated_at AS "updatedAt" FROM note
    WHERE id = ${noteId}::uuid AND (${userId ?? null}::text IS NULL OR user_id = ${userId ?? null}::text)
    FOR UPDATE`;
  return rows[0] ?? null;
}
