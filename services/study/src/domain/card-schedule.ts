/**
 * Spaced-repetition state of one flashcard (FSRS). The implementation (ts-fsrs) lives in
 * card-scheduler.ts; this file is the shape the rest of the service and the database use.
 */
export const REVIEW_RATINGS = ["again", "hard", "good", "easy"] as const;
export type ReviewRating = (typeof REVIEW_RATINGS)[number];

export const CARD_STATES = ["NEW", "LEARNING", "REVIEW", "RELEARNING"] as const;
export type CardState = (typeof CARD_STATES)[number];

export interface CardSchedule {
  due: Date;
  stability: number;
  difficulty: number;
  elapsedDays: number;
  scheduledDays: number;
  learningSteps: number;
  reps: number;
  lapses: number;
  state: CardState;
  lastReview: Date | null;
}

/** One review as kept in the review log: the rating, and the card as it was before this review. */
export interface ReviewLogEntry {
  rating: ReviewRating;
  /** The card's state before this review. */
  state: CardState;
  /** When the card was due (compare with reviewedAt for how late the review came). */
  due: Date;
  /** The card's stability and difficulty before this review. */
  stability: number;
  difficulty: number;
  /** Days since the previous review (0 for the first one). */
  elapsedDays: number;
  /** The interval the card had been scheduled for, in days. */
  scheduledDays: number;
  reviewedAt: Date;
}
