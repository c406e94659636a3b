import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { CalendarEvent } from "../domain/calendar-event";
import { toSearchable } from "./searchable";

export const SOURCE = "calendar";

/** Where a change came from: a change read from Google by a sync is not pushed back there. */
export interface ChangeOrigin {
  fromGoogle?: boolean;
}

export const calendarEventCreated = (event: CalendarEvent, { fromGoogle = false }: ChangeOrigin = {}): EventEnvelope =>
  createEvent(SOURCE, event.userId, {
    $case: "calendarEventCreated",
    value: { eventId: event.id, courseId: event.courseId ?? undefined, searchable: toSearchable(event), fromGoogle },
  });

export const calendarEventUpdated = (event: CalendarEvent, { fromGoogle = false }: ChangeOrigin = {}): EventEnvelope =>
  createEvent(SOURCE, event.userId, {
    $case: "calendarEventUpdated",
    value: { eventId: event.id, courseId: event.courseId ?? undefined, searchable: toSearchable(event), fromGoogle },
  });

export const calendarEventDeleted = (event: CalendarEvent, { fromGoogle = false }: ChangeOrigin = {}): EventEnvelope =>
  createEvent(SOURCE, event.userId, {
    $case: "calendarEventDeleted",
    value: {
      eventId: event.id,
      googleEventId: event.googleEventId ?? undefined,
      googleCalendarId: event.googleCalendarId ?? undefined,
      fromGoogle,
    },
  });

/** The reminder of an event, for its current start (notifications turns it into a REMINDER notification). */
export const calendarReminderDue = (event: CalendarEvent): EventEnvelope =>
  createEvent(SOURCE, event.userId, {
    $case: "calendarReminderDue",
    value: {
      eventId: event.id,
      title: event.title,
      startDate: event.startDate,
      location: event.location ?? undefined,
      minutesBefore: event.reminderMinutes,
      courseId: event.courseId ?? undefined,
    },
  });
