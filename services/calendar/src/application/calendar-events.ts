import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { CalendarEvent } from "../domain/calendar-event";
import { toSearchable } from "./searchable";

export const SOURCE = "calendar";

export const calendarEventCreated = (event: CalendarEvent): EventEnvelope =>
  createEvent(SOURCE, event.userId, {
    $case: "calendarEventCreated",
    value: { eventId: event.id, courseId: event.courseId ?? undefined, searchable: toSearchable(event) },
  });

export const calendarEventUpdated = (event: CalendarEvent): EventEnvelope =>
  createEvent(SOURCE, event.userId, {
    $case: "calendarEventUpdated",
    value: { eventId: event.id, courseId: event.courseId ?? undefined, searchable: toSearchable(event) },
  });

export const calendarEventDeleted = (event: CalendarEvent): EventEnvelope =>
  createEvent(SOURCE, event.userId, { $case: "calendarEventDeleted", value: { eventId: event.id } });

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
