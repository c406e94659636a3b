import type { CalendarEvent } from "./calendar-event";

/**
 * How long after its start an event may still be reminded: a reminder missed while no calendar replica ran (or
 * the event was created shortly before or after its start) is still sent within this window, never later.
 */
export const DEFAULT_REMINDER_GRACE_MS = 60 * 60_000;

/** What the due rule reads of an event; remindedFor is the start the reminder was sent for (null: never sent). */
export type ReminderState = Pick<CalendarEvent, "startDate" | "reminderMinutes"> & { remindedFor: Date | null };

/** When the event's reminder is due: reminderMinutes before its start. */
export function reminderTime(event: Pick<CalendarEvent, "startDate" | "reminderMinutes">): Date {
  return new Date(event.startDate.getTime() - event.reminderMinutes * 60_000);
}

/**
 * The due rule (the repository's claim query says the same in SQL): the event wants a reminder (reminderMinutes
 * > 0), its reminder time has come, it did not start longer than the grace ago, and no reminder was sent for its
 * current start. A moved event (start ≠ remindedFor) is therefore due again at its new time; changing only
 * reminderMinutes after the reminder went out does not send a second one for the same start.
 */
export function isReminderDue(event: ReminderState, now: Date, graceMs: number = DEFAULT_REMINDER_GRACE_MS): boolean {
  if (event.reminderMinutes <= 0) return false;
  if (reminderTime(event).getTime() > now.getTime()) return false;
  if (event.startDate.getTime() <= now.getTime() - graceMs) return false;
  return event.remindedFor?.getTime() !== event.startDate.getTime();
}
