import { AppError, type FieldViolation } from "@study/platform/errors";
import { DIFFICULTIES, MAX_FLASHCARD_COUNT, MAX_QUESTION_COUNT, type Difficulty, type SourceDocument, type SourceNote } from "./study-material";

/** Most notes one generation reads (the spec leaves it open). */
export const MAX_NOTES_PER_GENERATION = 20;
/** Most documents one generation reads (the document endpoint sends one). */
export const MAX_DOCUMENTS_PER_GENERATION = 20;
/** The spec's focusAreas: topics to favour. */
export const MAX_FOCUS_AREAS = 10;
export const MAX_FOCUS_AREA_LENGTH = 100;
export const DEFAULT_CARD_COUNT = 10;
export const DEFAULT_QUESTION_COUNT = 10;

/** Where a note's transcription stands, as the media service reports it. */
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
  /** Notes to study from; the first is the material's note. */
  notes: GenerationNote[];
  /** Processed documents to study from; absent means none. A request has at least one note or document. */
  documents?: SourceDocument[];
  /** Topics whose passages come first (at most 10, each 1-100 characters); absent means none. */
  focusAreas?: string[];
  difficulty: Difficulty;
}

/**
 * What a generation asks for, by id: the study service reads the course, the notes and the documents from their
 * owners (GenerationSources) and turns this into a GenerationRequest.
 */
export interface GenerationCommand {
  userId: string;
  /** The material's course; empty when only documents are named (the document endpoint): their course. */
  courseId: string;
  /** In the user's order; the first is the material's note. */
  noteIds: string[];
  documentIds: string[];
  /** Absent means none. */
  focusAreas?: string[];
  difficulty: Difficulty;
}

function idProblems(ids: readonly string[], field: string, noun: string, max: number): FieldViolation[] {
  const problems: FieldViolation[] = [];
  if (ids.length > max) problems.push({ field, message: `must name at most ${max} ${noun}s` });
  if (new Set(ids).size !== ids.length) problems.push({ field, message: `must not repeat a ${noun}` });
  if (ids.some((id) => !id.trim())) problems.push({ field, message: `must not name a blank ${noun} id` });
  return problems;
}

/**
 * Checks the command's shape before anything is read: a course unless documents name it, at least one source (at
 * most 20 distinct notes and 20 distinct documents), a known difficulty, at most 10 focus areas of 1-100 characters.
 */
export function assertValidGenerationCommand(command: GenerationCommand): void {
  const problems: FieldViolation[] = [];
  if (!command.courseId.trim() && command.documentIds.length === 0) problems.push({ field: "courseId", message: "is required" });
  if (!DIFFICULTIES.includes(command.difficulty)) problems.push({ field: "difficulty", message: "must be EASY, MEDIUM or HARD" });
  if (command.noteIds.length === 0 && command.documentIds.length === 0) {
    problems.push({ field: "noteIds", message: "must name at least one note or document" });
  }
  problems.push(
    ...idProblems(command.noteIds, "noteIds", "note", MAX_NOTES_PER_GENERATION),
    ...idProblems(command.documentIds, "documentIds", "document", MAX_DOCUMENTS_PER_GENERATION),
    ...focusAreaProblems(command.focusAreas ?? []),
  );
  if (problems.length) throw AppError.validation("Invalid generation request", problems);
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

function documentProblems(documents: readonly SourceDocument[]): FieldViolation[] {
  const problems: FieldViolation[] = [];
  if (documents.length > MAX_DOCUMENTS_PER_GENERATION) {
    problems.push({ field: "documents", message: `must name at most ${MAX_DOCUMENTS_PER_GENERATION} documents` });
  }
  const ids = documents.map((document) => document.documentId);
  if (new Set(ids).size !== ids.length) problems.push({ field: "documents", message: "must not repeat a document" });
  documents.forEach((document, index) => {
    if (!document.documentId.trim()) problems.push({ field: `documents.${index}.documentId`, message: "is required" });
    const numbers = document.pages.map((page) => page.number);
    if (numbers.some((number) => !Number.isInteger(number) || number < 1)) {
      problems.push({ field: `documents.${index}.pages`, message: "page numbers must be integers from 1" });
    } else if (new Set(numbers).size !== numbers.length) {
      problems.push({ field: `documents.${index}.pages`, message: "must not repeat a page number" });
    }
  });
  return problems;
}

function focusAreaProblems(focusAreas: readonly string[]): FieldViolation[] {
  const problems: FieldViolation[] = [];
  if (focusAreas.length > MAX_FOCUS_AREAS) problems.push({ field: "focusAreas", message: `must name at most ${MAX_FOCUS_AREAS} topics` });
  focusAreas.forEach((area, index) => {
    const length = area.trim().length;
    if (length < 1 || length > MAX_FOCUS_AREA_LENGTH) {
      problems.push({ field: `focusAreas.${index}`, message: `must be 1 to ${MAX_FOCUS_AREA_LENGTH} characters` });
    }
  });
  return problems;
}

/**
 * Checks what every generation needs: a course, at least one source (1-20 distinct notes and/or 1-20 distinct
 * documents), a known difficulty, at most 10 focus areas of 1-100 characters, every note transcribed (409
 * NOTE_NOT_TRANSCRIBED) and with text (NOT_ENOUGH_CONTENT), every document with text on some page
 * (DOCUMENT_HAS_NO_TEXT).
 */
export function assertValidGenerationRequest(request: GenerationRequest): void {
  const documents = request.documents ?? [];
  const problems: FieldViolation[] = [];
  if (!request.courseId.trim()) problems.push({ field: "courseId", message: "is required" });
  if (!DIFFICULTIES.includes(request.difficulty)) problems.push({ field: "difficulty", message: "must be EASY, MEDIUM or HARD" });
  if (request.notes.length === 0 && documents.length === 0) problems.push({ field: "noteIds", message: "must name at least one note or document" });
  if (request.notes.length > MAX_NOTES_PER_GENERATION) {
    problems.push({ field: "noteIds", message: `must name at most ${MAX_NOTES_PER_GENERATION} notes` });
  }
  const ids = request.notes.map((note) => note.noteId);
  if (new Set(ids).size !== ids.length) problems.push({ field: "noteIds", message: "must not repeat a note" });
  problems.push(...documentProblems(documents), ...focusAreaProblems(request.focusAreas ?? []));
  if (problems.length) throw AppError.validation("Invalid generation request", problems);

  request.notes.forEach(assertTranscribed);
  const empty = request.notes.filter((note) => !note.transcript.trim() && !note.userNotes.some((entry) => entry.contentType === "text"));
  if (empty.length) {
    // Transcribed (checked above), but it holds no words, and has no typed notes either.
    throw new AppError("precondition", "NOT_ENOUGH_CONTENT", `Note ${empty[0].noteId} has neither a transcript nor text notes to study from`);
  }
  const blank = documents.find((document) => !document.pages.some((page) => page.text.trim()));
  if (blank) {
    // Processed, but nothing was extracted: a scan whose OCR found no words, an empty file.
    throw new AppError("precondition", "DOCUMENT_HAS_NO_TEXT", `Document "${blank.title || blank.documentId}" has no extracted text to study from`);
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
