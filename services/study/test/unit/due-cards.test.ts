import { fixedClock } from "@study/platform/clock";
import { ListDueCards } from "../../src/application/list-due-cards";
import type { CardRepository } from "../../src/application/ports/study-repositories.port";
import { ReviewCard } from "../../src/application/review-card";
import type { CardSchedule, ReviewLogEntry } from "../../src/domain/card-schedule";
import { isDue, newCardSchedule, previewNextDue } from "../../src/domain/card-scheduler";
import type { Flashcard } from "../../src/domain/flashcard-set";

const USER = "0190a5f4-0000-7000-8000-0000000000aa";
const SET = "0190a5f4-0000-7000-8000-0000000000bb";
const COURSE = "0190a5f4-0000-7000-8000-0000000000cc";

/** The cards of one set in memory; due cards are found as the Prisma repository finds them (due ≤ now). */
function memoryCards(cards: Flashcard[]) {
  const byId = new Map(cards.map((card) => [card.id, card]));
  const reviews: ReviewLogEntry[] = [];
  const asked: Date[] = [];
  const repository: CardRepository = {
    findCard: (_userId, setId, cardId) => Promise.resolve(byId.get(cardId)?.flashcardSetId === setId ? (byId.get(cardId) ?? null) : null),
    recordReview: (_userId, cardId, schedule: CardSchedule, log) => {
      const card = { ...(byId.get(cardId) as Flashcard), schedule };
      byId.set(cardId, card);
      reviews.push(log);
      return Promise.resolve(card);
    },
    listDue: (_userId, now, filter) => {
      asked.push(now);
      const due = [...byId.values()].filter((card) => isDue(card.schedule, now)).sort((a, b) => a.schedule.due.getTime() - b.schedule.due.getTime());
      return Promise.resolve({
        cards: due.slice(0, filter.limit).map((flashcard) => ({ flashcard, courseId: COURSE, flashcardSetTitle: "Cells" })),
        totalDue: due.length,
      });
    },
  };
  return { repository, reviews, asked };
}

describe("due cards and reviews follow the clock", () => {
  const START = "2026-03-02T09:00:00.000Z";
  const clock = fixedClock(START);
  beforeEach(() => clock.set(START));
  const card = (id: string): Flashcard => ({
    id,
    flashcardSetId: SET,
    front: "Cell",
    back: "Unit of life",
    order: 0,
    source: null,
    schedule: newCardSchedule(clock.now()),
  });

  it("lists a new card as due at once, with the next due date each rating would give at the clock's time", async () => {
    const { repository, asked } = memoryCards([card("c1")]);
    const due = await new ListDueCards(repository, clock).execute(USER, {});
    expect(asked).toEqual([clock.now()]);
    expect(due.totalDue).toBe(1);
    const preview = previewNextDue(newCardSchedule(clock.now()), clock.now());
    expect(due.cards[0]?.nextDueByRating).toEqual([preview.again, preview.hard, preview.good, preview.easy]);
  });

  it("takes 50 cards when no limit is given, and refuses a limit outside 1-500, 0 included", async () => {
    const cards = Array.from({ length: 60 }, (_, index) => card(`c${index}`));
    const listDue = new ListDueCards(memoryCards(cards).repository, clock);
    expect((await listDue.execute(USER, {})).cards).toHaveLength(50);
    expect((await listDue.execute(USER, { limit: 1 })).cards).toHaveLength(1);
    for (const limit of [0, -1, 501, 1.5]) {
      await expect(listDue.execute(USER, { limit })).rejects.toMatchObject({
        kind: "validation",
        details: [{ field: "limit", message: "must be an integer from 1 to 500" }],
      });
    }
  });

  it("a reviewed card leaves the due list until the clock reaches its next due date", async () => {
    const { repository, reviews } = memoryCards([card("c1")]);
    const listDue = new ListDueCards(repository, clock);
    const reviewed = await new ReviewCard(repository, clock).execute(USER, SET, "c1", "good");
    expect(reviewed.schedule.lastReview).toEqual(clock.now());
    expect(reviews).toEqual([expect.objectContaining({ rating: "good", reviewedAt: clock.now() })]);
    expect(reviewed.schedule.due.getTime()).toBeGreaterThan(clock.now().getTime());

    expect((await listDue.execute(USER, {})).totalDue).toBe(0);
    clock.set(new Date(reviewed.schedule.due.getTime() - 1));
    expect((await listDue.execute(USER, {})).totalDue).toBe(0);
    clock.set(reviewed.schedule.due);
    expect((await listDue.execute(USER, {})).cards.map((entry) => entry.flashcard.id)).toEqual(["c1"]);
  });
});
