import { AppError, type FieldViolation } from "@study/platform/errors";

/** How demanding generated material is. The spec's three levels; MEDIUM when a request names none. */
export const DIFFICULTIES = ["EASY", "MEDIUM", "HARD"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

/** One stretch of a note's transcript, on the audio's timeline (seconds from the start). */
export interface SourceSegment {
  text: string;
  startTime: number;
  endTime: number;
  /** The recogniser's confidence in the segment, 0-1; absent when the engine gave none. */
  confidence?: number;
}

/** A timestamped annotation the user wrote on the note (contentType text, url or file). */
export interface SourceUserNote {
  timestamp: number;
  content: string;
  contentType: string;
}

/** A transcribed note as the generators read it. */
export interface SourceNote {
  noteId: string;
  title: string;
  transcript: string;
  /** In timeline order. Empty when the transcript has no timing. */
  segments: SourceSegment[];
  userNotes: SourceUserNote[];
  summary?: string;
}

/** A page of a document's extracted text (a PDF page, a slide, a sheet), numbered from 1. */
export interface SourceDocumentPage {
  number: number;
  text: string;
}

/** A processed document as the generators read it: its pages in order. */
export interface SourceDocument {
  documentId: string;
  title: string;
  pages: SourceDocumentPage[];
}

/**
 * Where a generated card, question or section came from, so a client can jump to it: the note and the start of
 * the transcript segment the text was taken from (null when it came from a user note or the whole note), or the
 * document and the page the text was taken from (null when no page could be told). The other kind's fields are
 * declared absent, so `source?.noteId` reads as "the note, if any" on either kind.
 */
export type SourceReference = NoteSourceReference | DocumentSourceReference;

export interface NoteSourceReference {
  noteId: string;
  startTime: number | null;
  documentId?: undefined;
  page?: undefined;
}

export interface DocumentSourceReference {
  documentId: string;
  page: number | null;
  noteId?: undefined;
  startTime?: undefined;
}

export interface GeneratedFlashcard {
  front: string;
  back: string;
  source: SourceReference | null;
}

export interface GeneratedFlashcardSet {
  title: string;
  description: string;
  cards: GeneratedFlashcard[];
  /** Why there are fewer cards than asked for, as a clause ("the notes state 9 distinct facts"); absent when the count was met. */
  shortfallReason?: string;
}

/** Generation produces these two; the spec lists short_answer as a future type. */
export const QUESTION_TYPES = ["multiple_choice", "true_false"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number] | "short_answer";

/** The two options of every true/false question, in this order. */
export const TRUE_FALSE_OPTIONS = ["True", "False"] as const;

export interface GeneratedQuestion {
  question: string;
  type: QuestionType;
  /** multiple_choice: exactly four distinct options; true_false: TRUE_FALSE_OPTIONS. */
  options: string[];
  /** One of `options`, verbatim. */
  correctAnswer: string;
  explanation: string;
  source: SourceReference | null;
}

export interface GeneratedQuiz {
  title: string;
  description: string;
  questions: GeneratedQuestion[];
  /** Why there are fewer questions than asked for, as a clause; absent when the count was met. */
  shortfallReason?: string;
}

export interface GeneratedStudySubsection {
  title: string;
  content: string;
}

export interface GeneratedStudySection {
  title: string;
  /** Markdown. */
  content: string;
  subsections: GeneratedStudySubsection[];
  source: SourceReference | null;
}

/** The structured study guide (the spec's shape B); its markdown form (shape A) is rendered from it. */
export interface GeneratedStudyGuide {
  title: string;
  description: string;
  overview: string;
  keyTerms: string[];
  learningObjectives: string[];
  studyTips: string[];
  /** In display order. */
  sections: GeneratedStudySection[];
}

export const MAX_FLASHCARD_COUNT = 50;
export const MAX_QUESTION_COUNT = 50;

const blank = (text: string) => text.trim().length === 0;

/**
 * Checks generated flashcards before anything is stored; an answer that breaks a rule is refused whole
 * (`GENERATION_INVALID`), never stored half-valid.
 */
export function assertValidFlashcardSet(set: GeneratedFlashcardSet): void {
  const problems: FieldViolation[] = [];
  if (blank(set.title)) problems.push({ field: "title", message: "is empty" });
  if (set.cards.length === 0) problems.push({ field: "cards", message: "no cards were generated" });
  set.cards.forEach((card, index) => {
    if (blank(card.front)) problems.push({ field: `cards[${index}].front`, message: "is empty" });
    if (blank(card.back)) problems.push({ field: `cards[${index}].back`, message: "is empty" });
  });
  if (problems.length) throw invalidGeneration("flashcards", problems);
}

/** Checks a generated quiz: four distinct options per multiple-choice question, True/False for true/false, the answer among the options. */
export function assertValidQuiz(quiz: GeneratedQuiz): void {
  const problems: FieldViolation[] = [];
  if (blank(quiz.title)) problems.push({ field: "title", message: "is empty" });
  if (quiz.questions.length === 0) problems.push({ field: "questions", message: "no questions were generated" });
  quiz.questions.forEach((question, index) => {
    const at = `questions[${index}]`;
    if (blank(question.question)) problems.push({ field: `${at}.question`, message: "is empty" });
    if (question.type === "multiple_choice") {
      const distinct = new Set(question.options.map((option) => option.trim().toLowerCase()));
      if (question.options.length !== 4 || distinct.size !== 4 || question.options.some(blank)) {
        problems.push({ field: `${at}.options`, message: "a multiple-choice question needs four distinct options" });
      }
    } else if (question.type === "true_false") {
      if (question.options.length !== 2 || question.options[0] !== TRUE_FALSE_OPTIONS[0] || question.options[1] !== TRUE_FALSE_OPTIONS[1]) {
        problems.push({ field: `${at}.options`, message: 'a true/false question has the options "True" and "False"' });
      }
    } else {
      problems.push({ field: `${at}.type`, message: `generation does not produce ${question.type} questions` });
    }
    if (!question.options.includes(question.correctAnswer)) {
      problems.push({ field: `${at}.correctAnswer`, message: "is not one of the options" });
    }
    if (blank(question.explanation)) problems.push({ field: `${at}.explanation`, message: "is empty" });
  });
  if (problems.length) throw invalidGeneration("quiz", problems);
}

/** Checks a generated study guide: a title, an overview, at least one section with content, no empty subsection. */
export function assertValidStudyGuide(guide: GeneratedStudyGuide): void {
  const problems: FieldViolation[] = [];
  if (blank(guide.title)) problems.push({ field: "title", message: "is empty" });
  if (blank(guide.overview)) problems.push({ field: "overview", message: "is empty" });
  if (guide.sections.length === 0) problems.push({ field: "sections", message: "no sections were generated" });
  guide.sections.forEach((section, index) => {
    if (blank(section.title)) problems.push({ field: `sections[${index}].title`, message: "is empty" });
    if (blank(section.content)) problems.push({ field: `sections[${index}].content`, message: "is empty" });
    // A subsection becomes a heading with its text in the markdown: both must say something.
    (section.subsections ?? []).forEach((subsection, subIndex) => {
      const at = `sections[${index}].subsections[${subIndex}]`;
      if (blank(subsection.title)) problems.push({ field: `${at}.title`, message: "is empty" });
      if (blank(subsection.content)) problems.push({ field: `${at}.content`, message: "is empty" });
    });
  });
  if (problems.length) throw invalidGeneration("study guide", problems);
}

function invalidGeneration(what: string, details: FieldViolation[]): AppError {
  return new AppError("unavailable", "GENERATION_INVALID", `The generated ${what} did not meet the rules; nothing was stored`, { details });
}

/**
 * The sentence that tells the user why material has fewer items than asked for ("9 of the 12 questions asked
 * for: the notes state 9 distinct facts"); null when the count was met.
 */
export function shortfallMessage(made: number, asked: number, noun: string, reason: string | undefined): string | null {
  if (made >= asked) return null;
  return `${made} of the ${asked} ${noun} asked for: ${reason?.trim() || "the generator found no more to ask about in these sources"}`;
}
