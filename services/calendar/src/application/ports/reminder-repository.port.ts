import type { EventEnvelope } from "@study/events/envelope";
import type { CalendarEvent } from "../../domain/calendar-event";

export interface ReminderClaim {
  now: Date;
  /** How long after its start an event may still be reminded. */
  graceMs: number;
  /** Most events claimed at once. */
  limit: number;
}

/** Where reminders are claimed: each event's reminder is sent once per start time, whatever the number of replicas. */
export interface ReminderRepository {
  /**
   * In one transaction: takes up to `limit` events whose reminder is due (domain/reminder.ts) and that no other
   * claimant holds at the moment (those are skipped, not waited for), marks each reminded for its current start,
   * and stores the events `announce` builds for each in the outbox. Returns the claimed events.
   */
  claimDue(claim: ReminderClaim, announce: (event: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent[]>;
}
