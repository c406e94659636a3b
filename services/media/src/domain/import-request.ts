import { AppError, type FieldViolation } from "@study/platform/errors";
import {
  DEFAULT_SPEED_MULTIPLIER,
  SPEED_MULTIPLIERS,
  sourceOf,
  type ImportJob,
  type ImportType,
  type SpeedMultiplier,
} from "./import-job";
import { normaliseTitle, type Note, type NoteMetadata, type NoteSource } from "./note";

/** Largest audio file an import accepts (spec: maximum file size 150 MB). */
export const MAX_AUDIO_FILE_SIZE = 150 * 1024 * 1024;

/** Audio formats of the spec (video/mp4: the audio is extracted). */
export const SUPPORTED_AUDIO_MIME_TYPES = [
  "audio/mpeg",
  "audio/wav",
  "audio/m4a",
  "audio/aac",
  "audio/ogg",
  "audio/flac",
  "audio/webm",
  "video/mp4",
] as const;

/** Other names the same formats go by (browsers, servers and file sniffers differ). */
const MIME_ALIASES: Record<string, (typeof SUPPORTED_AUDIO_MIME_TYPES)[number]> = {
  "audio/mp3": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/x-m4a": "audio/m4a",
  "audio/mp4": "audio/m4a",
  "audio/x-aac": "audio/aac",
  "audio/x-flac": "audio/flac",
  "application/ogg": "audio/ogg",
};

/** The supported format a MIME type names (lower-cased, without parameters), or null. */
export function supportedAudioMimeType(mimeType: string): string | null {
  const bare = mimeType.split(";")[0].trim().toLowerCase();
  if ((SUPPORTED_AUDIO_MIME_TYPES as readonly string[]).includes(bare)) return bare;
  return MIME_ALIASES[bare] ?? null;
}

const NOTE_SOURCE: Record<ImportType, NoteSource> = { VIDEO_IMPORT: "video", AUDIO_IMPORT: "audio_url", AUDIO_UPLOAD: "upload" };

/** An import as requested; `type` null when the caller named none this build knows. */
export interface ImportRequestDraft {
  type: ImportType | null;
  title: string;
  courseId: string;
  sourceUrl?: string | null;
  storageKey?: string | null;
  /** 1 or 2; absent or 0: the default (2). */
  speedMultiplier?: number | null;
  mimeType?: string | null;
  originalFilename?: string | null;
  fileSize?: number | null;
  audioUrl?: string | null;
}

const MAX_URL_LENGTH = 2048;
const MAX_STORAGE_KEY_LENGTH = 1024;
const MAX_FILE_NAME_LENGTH = 255;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The longest extension `shortenFileName` keeps whole ("lecture.flac"); a longer "extension" is just text. */
const MAX_KEPT_EXTENSION_LENGTH = 10;

/**
 * A file name cut to at most `maxCharacters` characters (code points, so no emoji is split in half), keeping
 * its extension when it has a short one: "<very long stem>.mp3" → "<stem cut short>.mp3". Names come from
 * URLs, browsers and downloads, so their length is not the user's choice and is shortened, never refused.
 */
export function shortenFileName(fileName: string, maxCharacters = MAX_FILE_NAME_LENGTH): string {
  const characters = [...fileName];
  if (characters.length <= maxCharacters) return fileName;
  const dot = characters.lastIndexOf(".");
  const extension = dot > 0 && characters.length - dot <= MAX_KEPT_EXTENSION_LENGTH + 1 ? characters.slice(dot) : [];
  return [...characters.slice(0, maxCharacters - extension.length), ...extension].join("");
}

const blankToNull = (value: string | null | undefined) => {
  const trimmed = value?.trim() ?? "";
  return trimmed.length === 0 ? null : trimmed;
};

/** An import request whose every field was checked. */
export interface ValidImportRequest {
  type: ImportType;
  title: string;
  courseId: string;
  sourceUrl: string | null;
  storageKey: string | null;
  speedMultiplier: SpeedMultiplier;
  mimeType: string | null;
  originalFilename: string | null;
  fileSize: number | null;
  audioUrl: string | null;
}

/**
 * Checks an import request: video and audio imports need an http(s) source URL, uploads a storage key;
 * speed 1 or 2; a supported audio format when one is named; at most 150 MB. Field problems become one
 * VALIDATION_ERROR; a file over the limit is FILE_TOO_LARGE. An original file name over 255 characters is
 * shortened (shortenFileName), not refused.
 */
export function validateImportRequest(draft: ImportRequestDraft): ValidImportRequest {
  const violations: FieldViolation[] = [];
  let title = "";
  try {
    title = normaliseTitle(draft.title);
  } catch (error) {
    violations.push(...(error as AppError).details);
  }
  const courseId = draft.courseId.trim();
  if (courseId.length === 0) violations.push({ field: "courseId", message: "is required" });

  const sourceUrl = blankToNull(draft.sourceUrl);
  const storageKey = blankToNull(draft.storageKey);
  if (draft.type === null) {
    violations.push({ field: "type", message: "must be one of video_import, audio_import, audio_upload" });
  } else if (draft.type === "AUDIO_UPLOAD") {
    if (storageKey === null) violations.push({ field: "storageKey", message: "is required for an upload" });
    if (sourceUrl !== null) violations.push({ field: "sourceUrl", message: "must not be set for an upload" });
  } else {
    if (sourceUrl === null) violations.push({ field: "url", message: "is required" });
    else if (sourceUrl.length > MAX_URL_LENGTH || !isHttpUrl(sourceUrl)) violations.push({ field: "url", message: "must be a valid http(s) URL" });
    if (storageKey !== null) violations.push({ field: "storageKey", message: "must not be set for a URL import" });
  }
  if (storageKey !== null && storageKey.length > MAX_STORAGE_KEY_LENGTH) {
    violations.push({ field: "storageKey", message: `must be at most ${MAX_STORAGE_KEY_LENGTH} characters` });
  }

  const speed = draft.speedMultiplier || DEFAULT_SPEED_MULTIPLIER;
  if (!(SPEED_MULTIPLIERS as readonly number[]).includes(speed)) violations.push({ field: "speedMultiplier", message: "must be 1 or 2" });

  let mimeType = blankToNull(draft.mimeType);
  if (mimeType !== null) {
    const supported = supportedAudioMimeType(mimeType);
    if (supported === null) {
      violations.push({ field: "mimeType", message: `is not a supported audio format (${SUPPORTED_AUDIO_MIME_TYPES.join(", ")})` });
    }
    mimeType = supported;
  }
  const givenFilename = blankToNull(draft.originalFilename);
  const originalFilename = givenFilename === null ? null : shortenFileName(givenFilename).trim();
  const fileSize = draft.fileSize ?? null;
  if (fileSize !== null && (!Number.isInteger(fileSize) || fileSize < 0)) violations.push({ field: "fileSize", message: "must be a number of bytes >= 0" });
  const audioUrl = blankToNull(draft.audioUrl);
  if (audioUrl !== null && audioUrl.length > MAX_URL_LENGTH) violations.push({ field: "audioUrl", message: `must be at most ${MAX_URL_LENGTH} characters` });

  if (violations.length > 0) throw AppError.validation("Invalid import", violations);
  if (fileSize !== null && fileSize > MAX_AUDIO_FILE_SIZE) {
    throw new AppError("too_large", "FILE_TOO_LARGE", `File is too large: at most ${MAX_AUDIO_FILE_SIZE / (1024 * 1024)} MB`);
  }
  return {
    type: draft.type!,
    title,
    courseId,
    sourceUrl,
    storageKey,
    speedMultiplier: speed as SpeedMultiplier,
    mimeType,
    originalFilename,
    fileSize,
    audioUrl,
  };
}

/** The note (PENDING) and the job (PENDING) an accepted import creates together. */
export function createImport(ids: { noteId: string; jobId: string }, userId: string, draft: ImportRequestDraft, now: Date): { note: Note; job: ImportJob } {
  const request = validateImportRequest(draft);
  const metadata: NoteMetadata = { source: NOTE_SOURCE[request.type] };
  if (request.sourceUrl !== null) metadata.originalUrl = request.sourceUrl;
  if (request.mimeType !== null) metadata.mimeType = request.mimeType;
  if (request.originalFilename !== null) metadata.originalFilename = request.originalFilename;
  if (request.fileSize !== null) metadata.fileSize = request.fileSize;
  const note: Note = {
    id: ids.noteId,
    userId,
    courseId: request.courseId,
    title: request.title,
    content: null,
    summary: null,
    audioUrl: request.audioUrl,
    audioStorageKey: request.storageKey,
    transcriptionStatus: "PENDING",
    metadata,
    userNotes: [],
    createdAt: now,
    updatedAt: now,
  };
  const job: ImportJob = {
    id: ids.jobId,
    userId,
    noteId: note.id,
    type: request.type,
    source: sourceOf(request.type),
    title: request.title,
    status: "PENDING",
    progress: 0,
    stage: null,
    errorMessage: null,
    attempts: 0,
    version: 0,
    sourceUrl: request.sourceUrl,
    storageKey: request.storageKey,
    speedMultiplier: request.speedMultiplier,
    mimeType: request.mimeType,
    originalFilename: request.originalFilename,
    fileSize: request.fileSize,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
  };
  return { note, job };
}
