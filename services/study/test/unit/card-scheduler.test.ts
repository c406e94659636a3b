import { REVIEW_RATINGS, type CardSchedule, type ReviewRating } from "../../src/domain/card-schedule";
import { isDue, newCardSchedule, previewNextDue, reviewCard } from "../../src/domain/card-scheduler";

const now = new Date("2026-03-02T09:00:00Z");
const MINUTE = 60_000;
const DAY = 86_400_000;

/** Reviews a card at each due date in turn with the given ratings. */
function reviewAtDueDates(ratings: ReviewRating[], start = newCardSchedule(now)): CardSchedule {
  return ratings.reduce((schedule, rating) => reviewCard(schedule, rating, schedule.due).schedule, start);
}

/** A schedule as the database gives it back: plain columns, dates parsed anew. */
function throughStorage(schedule: CardSchedule): CardSchedule {
  // dates travel as ISO strings; everything else as it is
  const row = JSON.parse(JSON.stringify(schedule)) as Omit<CardSchedule, "due" | "lastReview"> & { due: string; lastReview: string | null };
  return { ...row, due: new Date(row.due), lastReview: row.lastReview === null ? null : new Date(row.lastReview) };
}

describe("FSRS card scheduling", () => {
  it("starts a card as NEW, never reviewed, due at once", () => {
    expect(newCardSchedule(now)).toEqual({
      due: now,
      stability: 0,
      difficulty: 0,
      elapsedDays: 0,
      scheduledDays: 0,
      learningSteps: 0,
      reps: 0,
      lapses: 0,
      state: "NEW",
      lastReview: null,
    });
    expect(isDue(newCardSchedule(now), now)).toBe(true);
  });

  it("schedules a new card sooner the worse the rating: again < hard < good < easy", () => {
    const card = newCardSchedule(now);
    const due = REVIEW_RATINGS.map((rating) => reviewCard(card, rating, now).schedule.due.getTime());
    expect(due).toEqual([...due].sort((a, b) => a - b));
    expect(new Set(due).size).toBe(4);
    // The learning steps (1m, 10m) for again and good; easy graduates straight to review.
    expect(due[0]).toBe(now.getTime() + MINUTE);
    expect(due[2]).toBe(now.getTime() + 10 * MINUTE);
    expect(reviewCard(card, "good", now).schedule.state).toBe("LEARNING");
    expect(reviewCard(card, "easy", now).schedule.state).toBe("REVIEW");
  });

  it("logs a first review against the new card", () => {
    const reviewedAt = new Date(now.getTime() + DAY);
    expect(reviewCard(newCardSchedule(now), "good", reviewedAt).log).toEqual({
      rating: "good",
      state: "NEW",
      due: now,
      stability: 0,
      difficulty: 0,
      elapsedDays: 0,
      scheduledDays: 0,
      reviewedAt,
    });
  });

  it("orders the ratings the same way for a card in review", () => {
    const card = reviewAtDueDates(["good", "good", "good"]);
    expect(card.state).toBe("REVIEW");
    const due = REVIEW_RATINGS.map((rating) => reviewCard(card, rating, card.due).schedule.due.getTime());
    expect(new Set(due).size).toBe(4);
    expect(due).toEqual([...due].sort((a, b) => a - b));
  });

  it("uses the default parameters without fuzz: a new card rated easy is due in exactly 8 days", () => {
    const { schedule } = reviewCard(newCardSchedule(now), "easy", now);
    expect(schedule.scheduledDays).toBe(8);
    expect(schedule.due).toEqual(new Date(now.getTime() + 8 * DAY));
  });

  it("counts every review in reps and only forgotten review cards in lapses", () => {
    const learning = reviewAtDueDates(["again", "hard", "good"]);
    expect(learning).toMatchObject({ reps: 3, lapses: 0 });

    const inReview = reviewAtDueDates(["good", "good"]);
    expect(inReview).toMatchObject({ state: "REVIEW", reps: 2, lapses: 0 });
    const relearned = reviewAtDueDates(["again", "good", "good"], inReview);
    expect(relearned).toMatchObject({ state: "REVIEW", reps: 5, lapses: 1 });
  });

  it("sends a REVIEW card rated again into RELEARNING, logging the review against its former state", () => {
    const card = reviewAtDueDates(["good", "good", "good"]);
    const reviewedAt = new Date(card.due.getTime() + DAY);
    const { schedule, log } = reviewCard(card, "again", reviewedAt);

    expect(schedule).toMatchObject({ state: "RELEARNING", lapses: 1, reps: card.reps + 1, lastReview: reviewedAt });
    expect(schedule.stability).toBeLessThan(card.stability);
    expect(schedule.due).toEqual(new Date(reviewedAt.getTime() + 10 * MINUTE));
    expect(isDue(schedule, reviewedAt)).toBe(false);
    expect(isDue(schedule, schedule.due)).toBe(true);

    expect(log).toEqual({
      rating: "again",
      state: "REVIEW",
      due: card.due,
      stability: card.stability,
      difficulty: card.difficulty,
      elapsedDays: card.scheduledDays + 1,
      scheduledDays: card.scheduledDays,
      reviewedAt,
    });
  });

  it("gives the same next result for a schedule read back from its stored fields", () => {
    for (const history of [[], ["good"], ["good", "good", "easy"], ["good", "good", "again"]] as ReviewRating[][]) {
      const card = reviewAtDueDates(history);
      const later = new Date(card.due.getTime() + 3 * DAY);
      for (const rating of REVIEW_RATINGS) {
        expect(reviewCard(throughStorage(card), rating, later)).toEqual(reviewCard(card, rating, later));
      }
    }
  });

  it("is deterministic and leaves its input untouched", () => {
    const card = reviewAtDueDates(["good", "good", "good", "good"]);
    const copy = structuredClone(card);
    const later = new Date(card.due.getTime() + 2 * DAY);
    const first = reviewCard(card, "good", later);
    expect(reviewCard(card, "good", later)).toEqual(first);
    expect(reviewAtDueDates(["good", "good", "good", "good"])).toEqual(card);
    expect(card).toEqual(copy);
  });

  it("previews the due date of every rating as reviewing with it would set it", () => {
    const card = reviewAtDueDates(["good", "hard"]);
    const preview = previewNextDue(card, card.due);
    for (const rating of REVIEW_RATINGS) {
      expect(preview[rating]).toEqual(reviewCard(card, rating, card.due).schedule.due);
    }
  });

  it("keeps the returned dates independent of the caller's", () => {
    const clock = new Date(now);
    const card = newCardSchedule(clock);
    clock.setTime(0);
    expect(card.due).toEqual(now);
  });
});
