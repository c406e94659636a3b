import type { CalendarEvent } from "../../domain/calendar-event";

/** The one feed token a user has; stored with its sha256 (hex), by which RenderFeed finds it. */
export interface FeedToken {
  userId: string;
  token: string;
}

export interface FeedTokenRepository {
  /** Stores `candidate` unless the user already has a token; returns the user's token either way (one winner). */
  findOrCreate(userId: string, candidate: { token: string; tokenHash: string }): Promise<string>;
  /** Replaces the user's token (or stores a first one). */
  replace(userId: string, next: { token: string; tokenHash: string }): Promise<void>;
  /** The user whose token has this hash; null for an unknown or rotated token. */
  findUserByHash(tokenHash: string): Promise<string | null>;
}

/** Events a feed shows: the user's events overlapping [from, to), by start. */
export interface FeedEventSource {
  listOverlapping(userId: string, from: Date, to: Date): Promise<CalendarEvent[]>;
}

export interface FeedCalendar {
  name: string;
  events: CalendarEvent[];
}

/** Renders a feed as an iCalendar (RFC 5545) document. */
export interface FeedRenderer {
  render(calendar: FeedCalendar): string;
}
