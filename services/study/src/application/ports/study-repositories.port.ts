import type { EventEnvelope } from "@study/events/envelope";
import type { CardSchedule, ReviewLogEntry } from "../../domain/card-schedule";
import type { Flashcard, FlashcardSet } from "../../domain/flashcard-set";
import type { Quiz, QuizAttempt } from "../../domain/quiz";
import type { StudyGuide } from "../../domain/study-guide";

export interface MaterialFilter {
  courseId?: string;
  noteId?: string;
  /** Flashcard sets only. */
  flashcardSetId?: string;
}

/**
 * Persistence of one kind of generated material. Every write takes the events it causes: the adapter stores
 * them in the outbox in the same transaction as the change.
 */
export interface MaterialRepository<M> {
  /** The user's material of this course with this deduplication key, if any. */
  findByFingerprint(userId: string, courseId: string, contentHash: string): Promise<M | null>;
  /**
   * Stores new material; when another request stored the same fingerprint first, stores nothing and
   * returns that one instead (`created` false).
   */
  insertUnlessDuplicate(material: M, events: EventEnvelope[]): Promise<{ material: M; created: boolean }>;
  findOwned(userId: string, id: string): Promise<M | null>;
  /** Newest first (then by id); at most `limit` when given, else all. */
  listOwned(userId: string, filter: MaterialFilter, limit?: number): Promise<M[]>;
  /** Deletes with its parts; false when the user has no such material. */
  deleteOwned(userId: string, id: string, events: (material: M) => EventEnvelope[]): Promise<boolean>;
  /** Deletes all the user's material of a course; returns what was deleted. */
  deleteCourse(userId: string, courseId: string, events: (material: M) => EventEnvelope[]): Promise<M[]>;
  /** Up to `limit` of this kind (of one user, or of all when userId is absent) with ids after `afterId`, in id order. */
  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<M[]>;
}

export interface CardRepository {
  findCard(userId: string, flashcardSetId: string, flashcardId: string): Promise<Flashcard | null>;
  /** Stores the card's new schedule and the review log entry together. */
  recordReview(userId: string, flashcardId: string, schedule: CardSchedule, log: ReviewLogEntry): Promise<Flashcard>;
  /** Due at or before `now`, soonest first, with their set's title and course. */
  listDue(
    userId: string,
    now: Date,
    filter: { courseId?: string; flashcardSetId?: string; limit: number },
  ): Promise<{ cards: { flashcard: Flashcard; courseId: string; flashcardSetTitle: string }[]; totalDue: number }>;
}

export interface QuizAttemptRepository {
  insert(attempt: QuizAttempt): Promise<void>;
  /** Newest first. */
  listForQuiz(userId: string, quizId: string): Promise<QuizAttempt[]>;
}

/** The events announcing a material that changed, per kind (written in the change's transaction, to the outbox). */
export interface MaterialChangeEvents {
  flashcardSet(set: FlashcardSet): EventEnvelope[];
  quiz(quiz: Quiz): EventEnvelope[];
  studyGuide(guide: StudyGuide): EventEnvelope[];
}

/**
 * Keeps the material's links to its sources current as notes change in the media service and documents are
 * deleted in the documents service. Every method touches the given user's material only and is idempotent.
 */
export interface SourceNoteLinks {
  /**
   * The note is gone: drop it from note lists and source links (the material stays). Each material that changed
   * (its updatedAt moves) is announced by `events`, in the same transaction; one that no longer named the note (a
   * redelivery) is not.
   */
  detachNote(userId: string, noteId: string, events: MaterialChangeEvents): Promise<void>;
  renameNote(userId: string, noteId: string, title: string): Promise<void>;
  /** The document is gone: drop it from document lists and source links, page included (the material stays); as detachNote. */
  detachDocument(userId: string, documentId: string, events: MaterialChangeEvents): Promise<void>;
}

export type FlashcardSetRepository = MaterialRepository<FlashcardSet> & CardRepository;
export type QuizRepository = MaterialRepository<Quiz>;
export type StudyGuideRepository = MaterialRepository<StudyGuide>;
