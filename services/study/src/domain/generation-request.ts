import { AppError, type FieldViolation } from "@study/platform/errors";
import { DIFFICULTIES, MAX_FLASHCARD_COUNT, MAX_QUESTION_COUNT, type Difficulty, type SourceNote } from "./study-material";

/** Most notes one generation reads (the spec leaves it open). */
export const MAX_NOTES_PER_GENERATION = 20;
export const DEFAULT_CARD_COUNT = 10;
export const DEFAULT_QUESTION_COUNT = 10;

/** Where a note's transcription stands, as the media service reported it to the caller. */
export const TRANSCRIPTION_STATUSES = ["PENDING", "PROCESSING", "COMPLETED", "FAILED"] as const;
export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/** A source note with its transcription status: only a transcribed note can be studied from. */
export interface GenerationNote extends SourceNote {
  transcriptionStatus: TranscriptionStatus;
}

export interface GenerationRequest {
  userId: string;
  courseId: string;
  courseName: string;
  notes: GenerationNote[];
  difficulty: Difficulty;
}

/** Only a transcribed note can be used: one still being transcribed, or whose transcription failed, is a conflict. */
export function assertTranscribed(note: GenerationNote): void {
  if (note.transcriptionStatus === "COMPLETED") return;
  throw new AppError(
    "conflict",
    "NOTE_NOT_TRANSCRIBED",
    note.transcriptionStatus === "FAILED"
      ? `Note "${note.title}" could not be transcribed, so there is nothing to study from`
      : `Note "${note.title}" is still being transcribed (${note.transcriptionStatus}); try again when it is ready`,
  );
}

/**
 * Checks what every generation needs: a course, 1-20 distinct notes, a known difficulty, every note transcribed
 * (409 NOTE_NOT_TRANSCRIBED) and with text (NOT_ENOUGH_CONTENT).
 */
export function assertValidGenerationRequest(request: GenerationRequest): void {
  const problems: FieldViolation[] = [];
  if (!request.courseId.trim()) problems.push({ field: "courseId", message: "is required" });
  if (!DIFFICULTIES.includes(request.difficulty)) problems.push({ field: "difficulty", message: "must be EASY, MEDIUM or HARD" });
  if (request.notes.length === 0) problems.push({ field: "noteIds", message: "must name at least one note" });
  if (request.notes.length > MAX_NOTES_PER_GENERATION) {
    problems.push({ field: "noteIds", message: `must name at most ${MAX_NOTES_PER_GENERATION} notes` });
  }
  const ids = request.notes.map((note) => note.noteId);
  if (new Set(ids).size !== ids.length) problems.push({ field: "noteIds", message: "must not repeat a note" });
  if (problems.length) throw AppError.validation("Invalid generation request", problems);

  request.notes.forEach(assertTranscribed);
  const empty = request.notes.filter((note) => !note.transcript.trim() && !note.userNotes.some((entry) => entry.contentType === "text"));
  if (empty.length) {
    // Transcribed (checked above), but it holds no words, and has no typed notes either.
    throw new AppError("precondition", "NOT_ENOUGH_CONTENT", `Note ${empty[0].noteId} has neither a transcript nor text notes to study from`);
  }
}

/** A count in 1..max; the default when 0 or absent (proto3 sends 0 for "not given"). */
export function generationCount(value: number | undefined, fallback: number, max: number, field: string): number {
  if (value === undefined || value === 0) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw AppError.validation("Invalid generation request", [{ field, message: `must be an integer from 1 to ${max}` }]);
  }
  return value;
}

export const flashcardCount = (value?: number) => generationCount(value, DEFAULT_CARD_COUNT, MAX_FLASHCARD_COUNT, "cardCount");
export const questionCount = (value?: number) => generationCount(value, DEFAULT_QUESTION_COUNT, MAX_QUESTION_COUNT, "questionCount");
