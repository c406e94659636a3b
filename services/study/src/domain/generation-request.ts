import { AppError, type FieldViolation } from "@study/platform/errors";
import { DIFFICULTIES, MAX_FLASHCARD_COUNT, MAX_QUESTION_COUNT, type Difficulty, type SourceNote } from "./study-material";

/** Most notes one generation reads (the spec leaves it open). */
export const MAX_NOTES_PER_GENERATION = 20;
export const DEFAULT_CARD_COUNT = 10;
export const DEFAULT_QUESTION_COUNT = 10;

export interface GenerationRequest {
  userId: string;
  courseId: string;
  courseName: string;
  notes: SourceNote[];
  difficulty: Difficulty;
}

/** Checks what every generation needs: a course, 1-20 distinct notes with text, a known difficulty. */
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

  const empty = request.notes.filter((note) => !note.transcript.trim() && !note.userNotes.some((entry) => entry.contentType === "text"));
  if (empty.length) {
    // The gateway has already refused notes still being transcribed (409 NOTE_NOT_TRANSCRIBED): this one was
    // transcribed but holds no words, and has no typed notes either.
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
