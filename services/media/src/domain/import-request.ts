import { AppError, type FieldViolation } from "@study/platform/errors";
import { DEFAULT_SPEED_MULTIPLIER, SPEED_MULTIPLIERS, sourceOf, type ImportJob, type ImportType, type SpeedMultiplier } from "./import-job";
import { audioFormatFromFileName, audioFormatFromMimeType, mimeTypeOfAudioFormat, SUPPORTED_AUDIO_MIME_TYPES } from "./audio-format";
import { MAX_TITLE_LENGTH, normaliseTitle, type Note, type NoteMetadata, type NoteSource } from "./note";

/** Largest audio file an import accepts (spec: maximum file size 150 MB). */
export const MAX_AUDIO_FILE_SIZE = 150 * 1024 * 1024;

/** The spec's MIME type for a MIME type (spec type or common alias, parameters ignored), or null. */
export function supportedAudioMimeType(mimeType: string): string | null {
  const format = audioFormatFromMimeType(mimeType);
  return format === null ? null : mimeTypeOfAudioFormat(format);
}

function unexpectedFile(message: string): AppError {
  return new AppError("validation", "UNEXPECTED_FILE", message, { details: [{ field: "file", message }] });
}

/** "mp3" of "lecture.MP3" (lower case); null without one (no dot, a leading dot only, or a trailing dot). */
function extensionOf(fileName: string): string | null {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0 || dot === fileName.length - 1) return null;
  return fileName.slice(dot + 1).toLowerCase();
}

/**
 * The format of an audio URL import: the named `mimeType` when given, else the one the file name's extension
 * stands for; null when neither says (no extension: the worker checks the content when it downloads). A named
 * format outside the spec's list, or an extension that is none of them, is UNEXPECTED_FILE.
 */
export function audioImportMimeType(mimeType: string | null | undefined, fileName: string): string | null {
  const expected = `expected one of ${SUPPORTED_AUDIO_MIME_TYPES.join(", ")}`;
  const named = mimeType?.trim();
  if (named) {
    const supported = supportedAudioMimeType(named);
    if (supported === null) throw unexpectedFile(`Unsupported audio format ${named}: ${expected}`);
    return supported;
  }
  const extension = extensionOf(fileName);
  if (extension === null) return null;
  const format = audioFormatFromFileName(fileName);
  if (format === null) throw unexpectedFile(`Unsupported audio file ${fileName}: ${expected}`);
  return mimeTypeOfAudioFormat(format);
}

/** Names from URLs, file systems and video sites may hold NUL, which a title or the database cannot. */
const withoutNul = (text: string) => text.replaceAll("\u0000", "");

/** The last path segment of a URL, decoded ("lecture 1.mp3"), or the host when there is none. */
export function fileNameOfUrl(url: string): string {
  const parsed = new URL(url);
  const last = parsed.pathname.split("/").filter(Boolean).pop();
  if (!last) return parsed.hostname;
  try {
    return withoutNul(decodeURIComponent(last));
  } catch {
    return last;
  }
}

/**
 * The first `max` characters of `text`, counted in code points so that no emoji is cut in half. Titles made
 * from a video's or a file's name are shortened to fit rather than refusing the import: the user did not
 * choose their length.
 */
export const firstCharacters = (text: string, max: number) => [...text].slice(0, max).join("");

/** The spec's audio import title: a fixed prefix and the URL's file name. */
export const AUDIO_IMPORT_TITLE_PREFIX = "Audio Import: ";

/**
 * The title an import gets when the user named none: the video's own title (video imports), the prefix and the
 * URL's file name (audio imports), the uploaded file's name without its extension (uploads: "lecture.wav" →
 * "lecture"; a name that is only an extension stays whole). Shortened to 255 characters, never refused.
 */
export function defaultImportTitle(
  type: ImportType,
  source: { videoTitle?: string | null; sourceUrl?: string | null; fileName?: string | null },
): string {
  let title: string;
  if (type === "VIDEO_IMPORT") title = withoutNul(source.videoTitle ?? "").trim();
  else if (type === "AUDIO_IMPORT") title = `${AUDIO_IMPORT_TITLE_PREFIX}${source.sourceUrl ? fileNameOfUrl(source.sourceUrl) : ""}`;
  else {
    const fileName = withoutNul(source.fileName ?? "").trim();
    const dot = fileName.lastIndexOf(".");
    title = (dot > 0 && extensionOf(fileName) !== null ? fileName.slice(0, dot) : fileName).trim();
  }
  return firstCharacters(title, MAX_TITLE_LENGTH);
}

const NOTE_SOURCE: Record<ImportType, NoteSource> = { VIDEO_IMPORT: "video", AUDIO_IMPORT: "audio_url", AUDIO_UPLOAD: "upload" };

/** An import as requested; `type` null when the caller named none this build knows. */
export interface ImportRequestDraft {
  type: ImportType | null;
  title: string;
  courseId: string;
  sourceUrl?: string | null;
  storageKey?: string | null;
  /** 1 or 2; absent: the default (2). */
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

  // Absent is the default; anything else, 0 and NaN included, must be 1 or 2.
  const speed = draft.speedMultiplier ?? DEFAULT_SPEED_MULTIPLIER;
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
  const originalFilename = givenFilename === null ? null : shortenFileName(withoutNul(givenFilename)).trim() || null;
  const fileSize = draft.fileSize ?? null;
  if (fileSize !== null && (!Number.isInteger(fileSize) || fileSize < 0))
    violations.push({ field: "fileSize", message: "must be a number of bytes >= 0" });
  const audioUrl = blankToNull(draft.audioUrl);
  if (audioUrl !== null && audioUrl.length > MAX_URL_LENGTH)
    violations.push({ field: "audioUrl", message: `must be at most ${MAX_URL_LENGTH} characters` });

  const type = draft.type;
  // type is null only with a violation about it.
  if (violations.length > 0 || type === null) throw AppError.validation("Invalid import", violations);
  if (fileSize !== null && fileSize > MAX_AUDIO_FILE_SIZE) {
    throw new AppError("too_large", "FILE_TOO_LARGE", `File is too large: at most ${MAX_AUDIO_FILE_SIZE / (1024 * 1024)} MB`);
  }
  return {
    type,
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
export function createImport(
  ids: { noteId: string; jobId: string },
  userId: string,
  draft: ImportRequestDraft,
  now: Date,
): { note: Note; job: ImportJob } {
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
