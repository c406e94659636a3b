import type { DueCard, Rating } from "./queries";

export const RATINGS: readonly { rating: Rating; label: string; key: string }[] = [
  { rating: "again", label: "Again", key: "1" },
  { rating: "hard", label: "Hard", key: "2" },
  { rating: "good", label: "Good", key: "3" },
  { rating: "easy", label: "Easy", key: "4" },
];

/**
 * Cards rated in this session: each card's `lastReview` as the API recorded it. A due list fetched before a
 * rating still holds the card with its older `lastReview`; a card the API shows due again after the rating (an
 * "again" a minute later) carries the rating's own `lastReview` and comes back.
 */
export type RatedCards = ReadonlyMap<string, string | null>;

/** The cards of a due list still to review now, in the API's order (soonest due first). */
export function cardsToReview(cards: readonly DueCard[], rated: RatedCards): DueCard[] {
  return cards.filter((card) => !rated.has(card.id) || card.schedule.lastReview === rated.get(card.id));
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;

/** How long until a due date, as a rating button shows it: "1 min", "10 min", "5 hours", "3 days", "2 months". */
export function formatInterval(milliseconds: number): string {
  if (milliseconds < MINUTE) return "under a minute";
  if (milliseconds < HOUR) return `${Math.round(milliseconds / MINUTE)} min`;
  if (milliseconds < DAY) return plural(Math.round(milliseconds / HOUR), "hour");
  const days = Math.round(milliseconds / DAY);
  if (days < 31) return plural(days, "day");
  if (days < 365) return plural(Math.round(days / 30), "month");
  return plural(Math.round((days / 365) * 10) / 10, "year");
}

/** What each rating would give the card, measured from when the due list was fetched (the API's "now" for it). */
export function intervalsOf(card: DueCard, fetchedAt: number): Record<Rating, string> {
  const after = (due: string) => formatInterval(Math.max(0, Date.parse(due) - fetchedAt));
  const next = card.nextDueByRating;
  return { again: after(next.again), hard: after(next.hard), good: after(next.good), easy: after(next.easy) };
}
