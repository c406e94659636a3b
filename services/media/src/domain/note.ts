import { AppError, type FieldViolation } from "@study/platform/errors";

/** Where a note's transcription stands (the spec's transcriptionStatus). */
export const TRANSCRIPTION_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED"] as const;
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/** The REST `metadata.source` of a note. */
export const NOTE_SOURCES = ["video", "audio_url", "upload"] as const;
export type NoteSource = (typeof NOTE_SOURCES)[number];

/** The keys seen in a note's metadata; a key is absent when unknown. */
export interface NoteMetadata {
  source?: NoteSource;
  originalUrl?: string;
  /** Seconds. */
  duration?: number;
  wordCount?: number;
  mimeType?: string;
  originalFilename?: string;
  /** Bytes. */
  fileSize?: number;
  language?: string;
  /** 0-1. */
  confidence?: number;
}

export const USER_NOTE_CONTENT_TYPES = ["text", "url", "file"] as const;
export type UserNoteContentType = (typeof USER_NOTE_CONTENT_TYPES)[number];

/** A timestamped annotation of the audio. */
export interface UserNote {
  /** Seconds from the start of the audio, >= 0. */
  timestamp: number;
  content: string;
  contentType: UserNoteContentType;
}

/** A stretch of the transcript on the audio's timeline. */
export interface TranscriptSegment {
  id: string;
  noteId: string;
  text: string;
  /** Seconds from the start of the audio. */
  startTime: number;
  endTime: number;
  speaker: string | null;
  /** The recogniser's confidence in this stretch, 0-1; absent when the engine gave none. */
  confidence?: number;
}

/** A file attached to a note at a point of the audio. */
export interface Attachment {
  id: string;
  noteId: string;
  /** Where the file is stored (deleted with the note). */
  storageKey: string;
  fileUrl: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  timestamp: number;
  description: string | null;
  uploadedAt: Date;
}

/** A note as the domain sees it. */
export interface Note {
  id: string;
  userId: string;
  courseId: string;
  title: string;
  /** The transcript; null until the import completed. */
  content: string | null;
  summary: string | null;
  audioUrl: string | null;
  /** The stored audio, when the service keeps a copy (uploads). */
  audioStorageKey: string | null;
  transcriptionStatus: TranscriptionStatus;
  metadata: NoteMetadata;
  /** Sorted by timestamp. */
  userNotes: UserNote[];
  createdAt: Date;
  updatedAt: Date;
}

/** A note with the rows only GetNote returns. */
export interface NoteDetails extends Note {
  segments: TranscriptSegment[];
  attachments: Attachment[];
}

export const MAX_TITLE_LENGTH = 255;
export const MAX_USER_NOTE_LENGTH = 1000;
export const MAX_USER_NOTES = 1000;

/** Characters, not UTF-16 code units: an emoji counts once. */
const length = (text: string) => [...text].length;

/** A trimmed title of 1-255 characters without NUL (PostgreSQL text cannot hold it); `field` names it in the violation. */
export function normaliseTitle(title: string, field = "title"): string {
  const trimmed = title.trim();
  if (trimmed.length === 0) throw AppError.validation("Invalid title", [{ field, message: "must not be empty" }]);
  if (trimmed.includes("\u0000")) throw AppError.validation("Invalid title", [{ field, message: "must not contain a NUL character" }]);
  if (length(trimmed) > MAX_TITLE_LENGTH) {
    throw AppError.validation("Invalid title", [{ field, message: `must be at most ${MAX_TITLE_LENGTH} characters` }]);
  }
  return trimmed;
}

/** A user note as it arrives: the content type may be one this build does not know (null). */
export interface UserNoteDraft {
  timestamp: number;
  content: string;
  contentType: UserNoteContentType | null;
}

/**
 * Checks a replacement list of user notes and returns it sorted by timestamp (equal timestamps keep their
 * order). Every problem becomes one {field, message} naming the entry, e.g. `userNotes.2.content`.
 */
export function validateUserNotes(drafts: UserNoteDraft[]): UserNote[] {
  const violations: FieldViolation[] = [];
  if (drafts.length > MAX_USER_NOTES) violations.push({ field: "userNotes", message: `must have at most ${MAX_USER_NOTES} entries` });
  const notes: UserNote[] = [];
  drafts.forEach((draft, index) => {
    const at = `userNotes.${index}`;
    const content = draft.content.trim();
    if (!Number.isFinite(draft.timestamp) || draft.timestamp < 0) {
      violations.push({ field: `${at}.timestamp`, message: "must be a number of seconds >= 0" });
    }
    if (content.length === 0) violations.push({ field: `${at}.content`, message: "must not be empty" });
    else if (length(content) > MAX_USER_NOTE_LENGTH) {
      violations.push({ field: `${at}.content`, message: `must be at most ${MAX_USER_NOTE_LENGTH} characters` });
    }
    if (draft.contentType === null) {
      violations.push({ field: `${at}.contentType`, message: `must be one of ${USER_NOTE_CONTENT_TYPES.join(", ")}` });
    } else {
      notes.push({ timestamp: draft.timestamp, content, contentType: draft.contentType });
    }
  });
  if (violations.length > 0) throw AppError.validation("Invalid user notes", violations);
  // Array.prototype.sort is stable: equal timestamps keep the order the user gave.
  return [...notes].sort((a, b) => a.timestamp - b.timestamp);
}

/**
 * A changed note's updatedAt: now, but always after the previous one (search keeps a note's newest version by
 * updatedAt, so a change within the same millisecond, or after the clock stepped back, must still be newer).
 */
export function nextVersion(previous: Date, now: Date): Date {
  return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
}

export function replaceUserNotes(note: Note, drafts: UserNoteDraft[], now: Date): Note {
  return { ...note, userNotes: validateUserNotes(drafts), updatedAt: nextVersion(note.updatedAt, now) };
}

export function renameNote(note: Note, title: string, now: Date): Note {
  return { ...note, title: normaliseTitle(title), updatedAt: nextVersion(note.updatedAt, now) };
}

/**
 * The transitions of a note's transcription status. It follows its import job: PENDING until processing
 * starts, PROCESSING while it runs (again when a redelivered import restarts), then COMPLETED or FAILED
 * (also when the import is cancelled: a note has no cancelled state). COMPLETED is final; FAILED becomes PENDING
 * again only when its failed or cancelled import is retried.
 */
const NOTE_TRANSITIONS: Record<TranscriptionStatus, readonly TranscriptionStatus[]> = {
  PENDING: ["PROCESSING", "FAILED"],
  PROCESSING: ["PROCESSING", "COMPLETED", "FAILED"],
  COMPLETED: [],
  FAILED: ["PENDING"],
};

export function canMoveTranscription(from: TranscriptionStatus, to: TranscriptionStatus): boolean {
  return NOTE_TRANSITIONS[from].includes(to);
}

/** The note in its new transcription status; refuses a transition the rules above do not allow. */
export function moveTranscription(note: Note, to: TranscriptionStatus, now: Date): Note {
  if (!canMoveTranscription(note.transcriptionStatus, to)) {
    throw new AppError("precondition", "INVALID_NOTE_TRANSITION", `A ${note.transcriptionStatus} note cannot become ${to}`);
  }
  return { ...note, transcriptionStatus: to, updatedAt: nextVersion(note.updatedAt, now) };
}

/** A recognised stretch of a completed import, before it becomes one of the note's segments. */
export interface TranscribedSegment {
  text: string;
  startTime: number;
  endTime: number;
  speaker?: string | null;
  /** 0-1; absent when the transcriber gave this segment no score. */
  confidence?: number;
}

/** What a completed import puts into its note. */
export interface TranscriptionResult {
  transcript: string;
  summary: string;
  segments: TranscribedSegment[];
  /** Seconds. */
  duration: number;
  language: string;
  /** 0-1; absent when the transcriber gave no scores (the metadata then has no confidence). */
  confidence?: number;
  /** Set when the pipeline stored the audio or learned more about it. */
  audioUrl?: string;
  audioStorageKey?: string;
  mimeType?: string;
  fileSize?: number;
  originalFilename?: string;
}

export const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;

const isConfidence = (value: number) => value >= 0 && value <= 1;

/**
 * The note of a completed import: transcript, summary and the metadata learned while processing. Segments
 * must lie on the audio's timeline (0 <= start <= end); confidences, the note's and each segment's, are 0-1.
 */
export function completeTranscription(note: Note, result: TranscriptionResult, now: Date): Note {
  const violations: FieldViolation[] = [];
  result.segments.forEach((segment, index) => {
    if (!(segment.startTime >= 0) || !(segment.endTime >= segment.startTime)) {
      violations.push({ field: `segments.${index}`, message: "must satisfy 0 <= startTime <= endTime" });
    }
    if (segment.confidence !== undefined && !isConfidence(segment.confidence)) {
      violations.push({ field: `segments.${index}.confidence`, message: "must be between 0 and 1" });
    }
  });
  if (result.confidence !== undefined && !isConfidence(result.confidence))
    violations.push({ field: "confidence", message: "must be between 0 and 1" });
  if (!(result.duration >= 0)) violations.push({ field: "duration", message: "must be a number of seconds >= 0" });
  if (violations.length > 0) throw AppError.validation("Invalid transcription result", violations);
  const moved = moveTranscription(note, "COMPLETED", now);
  const metadata: NoteMetadata = {
    ...note.metadata,
    duration: result.duration,
    wordCount: countWords(result.transcript),
    language: result.language,
  };
  if (result.confidence !== undefined) metadata.confidence = result.confidence;
  if (result.mimeType !== undefined) metadata.mimeType = result.mimeType;
  if (result.fileSize !== undefined) metadata.fileSize = result.fileSize;
  if (result.originalFilename !== undefined) metadata.originalFilename = result.originalFilename;
  return {
    ...moved,
    content: result.transcript,
    summary: result.summary,
    audioUrl: result.audioUrl ?? note.audioUrl,
    audioStorageKey: result.audioStorageKey ?? note.audioStorageKey,
    metadata,
  };
}

/** Every stored object that belongs to the note (its audio and its attachments), without duplicates. */
export function storageKeysOf(
  note: Pick<Note, "audioStorageKey">,
  attachments: Pick<Attachment, "storageKey">[],
  extra: (string | null)[] = [],
): string[] {
  const keys = [note.audioStorageKey, ...attachments.map((a) => a.storageKey), ...extra].filter((key): key is string => !!key);
  return [...new Set(keys)];
}

/**
 * A stored file of a note as its owner downloads it: the note's audio (played in place) or an attachment
 * (saved under its original name).
 */
export interface NoteFile {
  storageKey: string;
  role: "audio" | "attachment";
  fileName: string;
  mimeType: string;
}

const UNKNOWN_MIME_TYPE = "application/octet-stream";

/** The note's stored audio (uploads keep one), named as uploaded. */
export function audioFileOf(note: Pick<Note, "title" | "audioStorageKey" | "metadata">): NoteFile | null {
  if (!note.audioStorageKey) return null;
  return {
    storageKey: note.audioStorageKey,
    role: "audio",
    fileName: note.metadata.originalFilename ?? note.title,
    mimeType: note.metadata.mimeType ?? UNKNOWN_MIME_TYPE,
  };
}

export function attachmentFileOf(attachment: Pick<Attachment, "storageKey" | "fileName" | "mimeType">): NoteFile {
  return { storageKey: attachment.storageKey, role: "attachment", fileName: attachment.fileName, mimeType: attachment.mimeType };
}
