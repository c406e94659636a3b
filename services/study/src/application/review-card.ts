import { systemClock, type Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { REVIEW_RATINGS, type ReviewRating } from "../domain/card-schedule";
import { reviewCard } from "../domain/card-scheduler";
import type { Flashcard } from "../domain/flashcard-set";
import type { CardRepository } from "./ports/study-repositories.port";

/** Records a review of one card (FSRS), made at the clock's time, and keeps it in the review log. */
export class ReviewCard {
  constructor(
    private readonly cards: CardRepository,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(userId: string, flashcardSetId: string, flashcardId: string, rating: ReviewRating): Promise<Flashcard> {
    if (!REVIEW_RATINGS.includes(rating)) {
      throw AppError.validation("Invalid review", [{ field: "rating", message: "must be one of again, hard, good, easy" }]);
    }
    const card = await this.cards.findCard(requireUserId(userId), flashcardSetId, flashcardId);
    if (!card) throw AppError.notFound("Flashcard");
    const now = this.clock.now();
    const { schedule, log } = reviewCard(card.schedule, rating, now);
    return this.cards.recordReview(userId, flashcardId, schedule, log);
  }
}
