import { systemClock, type Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { REVIEW_RATINGS } from "../domain/card-schedule";
import { previewNextDue } from "../domain/card-scheduler";
import type { CardRepository } from "./ports/study-repositories.port";

export const DEFAULT_DUE_LIMIT = 50;
export const MAX_DUE_LIMIT = 500;

/**
 * The user's cards due now (optionally of one course or set), soonest first, with the next due date per rating.
 * "Now" is the clock's: what is due and when each rating would bring a card back both depend on it.
 */
export class ListDueCards {
  constructor(
    private readonly cards: CardRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(userId: string, filter: { courseId?: string; flashcardSetId?: string; limit?: number }) {
    const limit = filter.limit ?? DEFAULT_DUE_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DUE_LIMIT) {
      throw AppError.validation("Invalid query", [{ field: "limit", message: `must be an integer from 1 to ${MAX_DUE_LIMIT}` }]);
    }
    const now = this.clock.now();
    const due = await this.cards.listDue(requireUserId(userId), now, { ...filter, limit });
    return {
      totalDue: due.totalDue,
      // What each rating button would schedule, so a client can label them.
      cards: due.cards.map((entry) => {
        const preview = previewNextDue(entry.flashcard.schedule, now);
        return { ...entry, nextDueByRating: REVIEW_RATINGS.map((rating) => preview[rating]) };
      }),
    };
  }
}
