/**
 * The user's Google Calendar, as the sync and the push need it (adapter: adapters/google, over the Calendar v3
 * REST API with the official client). Every call is made with the user's OAuth access token, which the caller
 * obtains from the identity service first.
 */

import type { GoogleEvent, GoogleEventWrite } from "../../domain/google-event";

// The shapes of Google's events are the domain's (domain/google-event.ts): the sync's rules read them.
export type { GoogleEvent, GoogleEventTime, GoogleEventWrite } from "../../domain/google-event";

export interface GoogleEventPage {
  events: GoogleEvent[];
  /** More results: ask again with this token (and the same request otherwise). */
  nextPageToken?: string;
  /** On the last page: the token of the next incremental sync. */
  nextSyncToken?: string;
}

/**
 * One page of the events list, always with recurring events expanded into instances (`singleEvents`):
 * - full: the confirmed events overlapping [timeMin, timeMax);
 * - incremental: every change since the sync token, cancelled events included (`status: "cancelled"`).
 */
export type GoogleEventsQuery =
  { kind: "full"; timeMin: Date; timeMax: Date; pageToken?: string } | { kind: "incremental"; syncToken: string; pageToken?: string };

/**
 * Why Google refused, from its error response (HTTP status and `error.errors[].reason`):
 * - auth: 401 (invalid or expired credentials);
 * - permission: 403 without a rate-limit reason (the calendar scope was not granted, or no access to the calendar);
 * - rate_limit: 429, or 403 with reason rateLimitExceeded / userRateLimitExceeded / quotaExceeded;
 * - sync_token_expired: 410 on a list with a sync token (a full sync is needed);
 * - gone: 404 or 410 on an event (deleted in Google already);
 * - duplicate: 409 on an insert (an event with that id exists: a retried insert already made it);
 * - other: anything else (5xx, unexpected answers, network failures).
 */
export type GoogleCalendarFailure = "auth" | "permission" | "rate_limit" | "sync_token_expired" | "gone" | "duplicate" | "other";

export class GoogleCalendarError extends Error {
  constructor(
    readonly failure: GoogleCalendarFailure,
    message: string,
    /** Google's HTTP status, when it answered. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "GoogleCalendarError";
  }
}

/** Every method throws GoogleCalendarError on failure. */
export interface GoogleCalendarPort {
  listEvents(accessToken: string, calendarId: string, query: GoogleEventsQuery): Promise<GoogleEventPage>;
  /** Creates the event with the id `event.id`. */
  insertEvent(accessToken: string, calendarId: string, event: GoogleEventWrite): Promise<{ id: string }>;
  patchEvent(accessToken: string, calendarId: string, eventId: string, event: GoogleEventWrite): Promise<void>;
  deleteEvent(accessToken: string, calendarId: string, eventId: string): Promise<void>;
}
