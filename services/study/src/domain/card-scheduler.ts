import { createEmptyCard, fsrs, Rating, State, type Card, type Grade, type ReviewLog } from "ts-fsrs";
import { REVIEW_RATINGS, type CardSchedule, type CardState, type ReviewLogEntry, type ReviewRating } from "./card-schedule";

/**
 * FSRS scheduling (ts-fsrs, default FSRS-6 parameters, 90 % target retention, short-term (re)learning steps of
 * 1m/10m and 10m). Fuzz stays off so the same history always gives the same due date: reviews are reproducible
 * and tests exact.
 */
const scheduler = fsrs({ enable_fuzz: false });

const GRADE_OF_RATING: Record<ReviewRating, Grade> = {
  again: Rating.Again,
  hard: Rating.Hard,
  good: Rating.Good,
  easy: Rating.Easy,
};

const FSRS_STATE_OF: Record<CardState, State> = {
  NEW: State.New,
  LEARNING: State.Learning,
  REVIEW: State.Review,
  RELEARNING: State.Relearning,
};

const CARD_STATE_OF: Record<State, CardState> = {
  [State.New]: "NEW",
  [State.Learning]: "LEARNING",
  [State.Review]: "REVIEW",
  [State.Relearning]: "RELEARNING",
};

/** The schedule of a card never reviewed: due right away. */
export function newCardSchedule(now: Date): CardSchedule {
  return fromFsrsCard(createEmptyCard(now));
}

/** Applies one review: the card's next schedule, and the log entry recording the review. */
export function reviewCard(schedule: CardSchedule, rating: ReviewRating, now: Date): { schedule: CardSchedule; log: ReviewLogEntry } {
  const { card, log } = scheduler.next(toFsrsCard(schedule), now, GRADE_OF_RATING[rating]);
  return { schedule: fromFsrsCard(card), log: reviewLogEntry(schedule, rating, log) };
}

/** When the card would next be due for each possible rating given now (what a client shows on the rating buttons). */
export function previewNextDue(schedule: CardSchedule, now: Date): Record<ReviewRating, Date> {
  const preview = scheduler.repeat(toFsrsCard(schedule), now);
  return Object.fromEntries(REVIEW_RATINGS.map((rating) => [rating, new Date(preview[GRADE_OF_RATING[rating]].card.due)])) as Record<
    ReviewRating,
    Date
  >;
}

export function isDue(schedule: CardSchedule, now: Date): boolean {
  return schedule.due.getTime() <= now.getTime();
}

function toFsrsCard(schedule: CardSchedule): Card {
  return {
    due: schedule.due,
    stability: schedule.stability,
    difficulty: schedule.difficulty,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- ts-fsrs 5 still takes it (gone in 6); the schedule keeps it for the review log
    elapsed_days: schedule.elapsedDays,
    scheduled_days: schedule.scheduledDays,
    learning_steps: schedule.learningSteps,
    reps: schedule.reps,
    lapses: schedule.lapses,
    state: FSRS_STATE_OF[schedule.state],
    last_review: schedule.lastReview ?? undefined,
  };
}

// Dates are copied: ts-fsrs may hand back the Date instances it was given.
function fromFsrsCard(card: Card): CardSchedule {
  return {
    due: new Date(card.due),
    stability: card.stability,
    difficulty: card.difficulty,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- ts-fsrs 5 still computes it (gone in 6)
    elapsedDays: card.elapsed_days,
    scheduledDays: card.scheduled_days,
    learningSteps: card.learning_steps,
    reps: card.reps,
    lapses: card.lapses,
    state: CARD_STATE_OF[card.state],
    lastReview: card.last_review ? new Date(card.last_review) : null,
  };
}

/**
 * The review as logged: the card as it was before it (ts-fsrs's own log has the same values except `due`, which
 * there means the previous review; here it is when the card was due, which shows how late the review came).
 */
function reviewLogEntry(reviewed: CardSchedule, rating: ReviewRating, log: ReviewLog): ReviewLogEntry {
  return {
    rating,
    state: reviewed.state,
    due: new Date(reviewed.due),
    stability: reviewed.stability,
    difficulty: reviewed.difficulty,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- ts-fsrs 5 still computes it (gone in 6)
    elapsedDays: log.elapsed_days,
    scheduledDays: reviewed.scheduledDays,
    reviewedAt: new Date(log.review),
  };
}
