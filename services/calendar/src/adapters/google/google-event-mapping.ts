import type { calendar_v3 } from "@googleapis/calendar";
import type { GoogleEvent, GoogleEventTime, GoogleEventWrite } from "../../application/ports/google-calendar.port";

/**
 * Google's event resources (Calendar API v3) to the port's shapes and back. Pure: the client does the calls.
 */

/** The private extended property naming the study event an event was pushed from. */
export const STUDY_EVENT_ID_PROPERTY = "studyEventId";

const STATUSES: ReadonlySet<string> = new Set(["confirmed", "tentative", "cancelled"]);

function timeOf(time: calendar_v3.Schema$EventDateTime | undefined): GoogleEventTime | undefined {
  if (!time) return undefined;
  // An all-day event keeps its date as Google gives it: the day is the same in every zone.
  if (time.date) return { date: time.date };
  if (!time.dateTime) return undefined;
  const instant = new Date(time.dateTime);
  return Number.isNaN(instant.getTime()) ? undefined : { dateTime: instant };
}

const text = (value: string | null | undefined): string | undefined => value ?? undefined;

/** The port's view of one of Google's events; null for an item without an id (nothing to key it by). */
export function fromGoogleEvent(resource: calendar_v3.Schema$Event): GoogleEvent | null {
  if (!resource.id) return null;
  // Google always sends a status; an unknown one is treated as a live event, never as a deletion.
  const status = resource.status && STATUSES.has(resource.status) ? (resource.status as GoogleEvent["status"]) : "confirmed";
  const event: GoogleEvent = { id: resource.id, status };
  const fields: Partial<GoogleEvent> = {
    summary: text(resource.summary),
    description: text(resource.description),
    location: text(resource.location),
    start: timeOf(resource.start),
    end: timeOf(resource.end),
    colorId: text(resource.colorId),
    // The calendar's default reminders (useDefault) are the calendar's, not this event's.
    reminderMinutes: resource.reminders?.useDefault
      ? undefined
      : ((resource.reminders?.overrides ?? []).find((override) => override.method === "popup")?.minutes ?? undefined),
    studyEventId: text(resource.extendedProperties?.private?.[STUDY_EVENT_ID_PROPERTY]),
  };
  const present = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<GoogleEvent>;
  return { ...present, ...event };
}

/**
 * The body of an insert or a patch. A patch sends every field (a cleared one as null, which Google's patch
 * semantics read as "remove"); the times name their kind and null the other key, since Google merges the nested
 * start/end objects of a patch and an event may switch between timed and all-day. Times are sent in UTC.
 */
export function toGoogleResource(write: GoogleEventWrite, mode: "insert" | "patch"): calendar_v3.Schema$Event {
  const patching = mode === "patch";
  const time = (value: GoogleEventTime): calendar_v3.Schema$EventDateTime =>
    "date" in value
      ? { date: value.date, ...(patching ? { dateTime: null, timeZone: null } : {}) }
      : { dateTime: value.dateTime.toISOString(), timeZone: "UTC", ...(patching ? { date: null } : {}) };
  const resource: calendar_v3.Schema$Event = {
    ...(patching ? {} : { id: write.id }),
    summary: write.summary,
    start: time(write.start),
    end: time(write.end),
    // No reminder is an empty override list: useDefault would give the calendar's default reminders instead.
    reminders: { useDefault: false, overrides: write.reminderMinutes > 0 ? [{ method: "popup", minutes: write.reminderMinutes }] : [] },
    extendedProperties: { private: { [STUDY_EVENT_ID_PROPERTY]: write.studyEventId } },
  };
  // An insert leaves an empty field out; a patch clears it.
  if (write.description !== null || patching) resource.description = write.description;
  if (write.location !== null || patching) resource.location = write.location;
  if (write.colorId !== null || patching) resource.colorId = write.colorId;
  return resource;
}
