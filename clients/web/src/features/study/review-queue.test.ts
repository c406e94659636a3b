import { describe, expect, it } from "vitest";
import type { DueCard } from "./queries";
import { cardsToReview, formatInterval, intervalsOf } from "./review-queue";

const NOW = Date.parse("2026-03-02T10:00:00.000Z");

function dueCard(id: string, lastReview: string | null): DueCard {
  const at = (ms: number) => new Date(NOW + ms).toISOString();
  return {
    id,
    front: `Front ${id}`,
    back: `Back ${id}`,
    order: 0,
    flashcardSetId: "set-1",
    source: null,
    courseId: "course-1",
    flashcardSetTitle: "Set",
    schedule: { state: "NEW", due: at(0), stability: 0, difficulty: 0, scheduledDays: 0, reps: 0, lapses: 0, lastReview },
    nextDueByRating: { again: at(60_000), hard: at(6 * 60_000), good: at(10 * 60_000), easy: at(8 * 86_400_000) },
  };
}

describe("cardsToReview", () => {
  it("keeps the API's order and leaves out cards rated in this session", () => {
    const cards = [dueCard("a", null), dueCard("b", null), dueCard("c", null)];
    expect(cardsToReview(cards, new Map()).map((card) => card.id)).toEqual(["a", "b", "c"]);
    expect(cardsToReview(cards, new Map([["b", "2026-03-02T10:01:00.000Z"]])).map((card) => card.id)).toEqual(["a", "c"]);
  });

  it("shows a rated card again once the API, knowing the rating, says it is due again", () => {
    const ratedAt = "2026-03-02T10:01:00.000Z";
    const rated = new Map([["a", ratedAt]]);
    expect(cardsToReview([dueCard("a", null)], rated)).toEqual([]);
    expect(cardsToReview([dueCard("a", ratedAt)], rated).map((card) => card.id)).toEqual(["a"]);
  });
});

describe("formatInterval", () => {
  it.each([
    [20_000, "under a minute"],
    [60_000, "1 min"],
    [10 * 60_000, "10 min"],
    [3_600_000, "1 hour"],
    [5 * 3_600_000, "5 hours"],
    [86_400_000, "1 day"],
    [8 * 86_400_000, "8 days"],
    [62 * 86_400_000, "2 months"],
    [400 * 86_400_000, "1.1 years"],
    [365 * 86_400_000, "1 year"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatInterval(ms)).toBe(text);
  });
});

describe("intervalsOf", () => {
  it("labels each rating with the wait the API previewed, from when the list was fetched", () => {
    expect(intervalsOf(dueCard("a", null), NOW)).toEqual({ again: "1 min", hard: "6 min", good: "10 min", easy: "8 days" });
  });
});
