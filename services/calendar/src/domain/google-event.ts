import { EVENT_LIMITS, midnightUtc, type CalendarEvent, type EventType } from "./calendar-event";

/**
 * How events cross between Google Calendar and the study calendar, both ways. Google's shapes are described here
 * (the port and its adapter speak them); the rules of what is kept, guessed or left alone live here too.
 */

/** A time of a Google event: an instant, or a whole day (`YYYY-MM-DD`) for an all-day event. */
export type GoogleEventTime = { dateTime: Date } | { date: string };

/** An event as Google Calendar has it, reduced to what the calendar service reads. */
export interface GoogleEvent {
  /** Google's event id; for an instance of a recurring event, the instance's own id. */
  id: string;
  status: "confirmed" | "tentative" | "cancelled";
  /** Absent on a cancelled event, and on an event the user left untitled. */
  summary?: string;
  description?: string;
  location?: string;
  start?: GoogleEventTime;
  end?: GoogleEventTime;
  /** One of Google's event colour ids ("1"-"11"). */
  colorId?: string;
  /** Minutes before the start of the event's first popup reminder override, if it has one. */
  reminderMinutes?: number;
  /** The study event this one was pushed from (our private extended property), if it was. */
  studyEventId?: string;
}

/** What the push writes to Google for a study event (every field: a patch sends them all). */
export interface GoogleEventWrite {
  /**
   * The id the event has in Google when the push creates it (`googleEventIdFor`): made from the study event's
   * id, so that creating it twice (a retried push) cannot make two events; Google answers 409 the second time.
   */
  id: string;
  summary: string;
  description: string | null;
  location: string | null;
  start: GoogleEventTime;
  end: GoogleEventTime;
  /** A Google colour id when the study colour is one of Google's, else null (the calendar's own colour). */
  colorId: string | null;
  /** A popup reminder this many minutes before (0: none). */
  reminderMinutes: number;
  /** Kept in a private extended property, so that a later sync knows the event came from here. */
  studyEventId: string;
}

/** Google's event palette (colorId → the colour its apps show). */
export const GOOGLE_EVENT_COLORS: Readonly<Record<string, string>> = {
  "1": "#7986cb",
  "2": "#33b679",
  "3": "#8e24aa",
  "4": "#e67c73",
  "5": "#f6bf26",
  "6": "#f4511e",
  "7": "#039be5",
  "8": "#616161",
  "9": "#3f51b5",
  "10": "#0b8043",
  "11": "#d50000",
};
/** An event without a colour of its own shows the calendar's default colour ("Peacock"). */
export const GOOGLE_DEFAULT_COLOR = "#039be5";
/** What Google's apps show for an event without a title. */
export const UNTITLED = "(No title)";

/** The fields of a study event that an imported Google event sets (the others stay the user's). */
export interface ImportedFields {
  title: string;
  description: string | null;
  location: string | null;
  startDate: Date;
  endDate: Date | null;
  allDayDate: string | null;
}

/** The fields a newly imported event starts with beyond ImportedFields (later syncs leave them as the user sets them). */
export interface ImportDefaults {
  eventType: EventType;
  color: string;
  reminderMinutes: number | null;
}

const DAY_MS = 86_400_000;

/** Cut to `max` code points (never inside a surrogate pair); null for blank text. */
function fit(text: string | undefined, max: number): string | null {
  const trimmed = text?.trim() ?? "";
  if (trimmed.length === 0) return null;
  const codePoints = [...trimmed];
  return codePoints.length <= max ? trimmed : codePoints.slice(0, max).join("").trimEnd();
}

const instantOf = (time: GoogleEventTime): Date | null => ("dateTime" in time ? time.dateTime : midnightUtc(time.date));

/**
 * The study fields of a Google event, or null when it cannot be one (cancelled, or no usable start).
 * All-day events keep their date: start = that day's midnight UTC and `allDayDate` = the date, whatever the
 * user's time zone; the end is Google's end date (exclusive, as in iCalendar) at midnight UTC. An end at the start
 * is none (Google needs an end: a study event without one goes there ending when it starts).
 * Text longer than the study calendar's limits is shortened rather than refused (the user cannot fix it here).
 */
export function importedFields(event: GoogleEvent): ImportedFields | null {
  if (event.status === "cancelled" || !event.start) return null;
  const startDate = instantOf(event.start);
  if (!startDate || Number.isNaN(startDate.getTime())) return null;
  let endDate = event.end ? instantOf(event.end) : null;
  // An end before the start is no end; one at the start is a moment (a deadline pushed from here has one).
  if (endDate && (Number.isNaN(endDate.getTime()) || endDate.getTime() <= startDate.getTime())) endDate = null;
  return {
    title: fit(event.summary, EVENT_LIMITS.title) ?? UNTITLED,
    description: fit(event.description, EVENT_LIMITS.description),
    location: fit(event.location, EVENT_LIMITS.location),
    startDate,
    endDate,
    allDayDate: "date" in event.start ? event.start.date : null,
  };
}

/** Words that name what kind of event something is, checked in this order (an "exam review session" is an exam). */
const TYPE_WORDS: ReadonlyArray<[EventType, RegExp]> = [
  ["EXAM", /\b(exams?|midterms?|finals?|quiz(?:zes)?|tests?|examinations?|oral exam)\b/i],
  ["DEADLINE", /\b(deadlines?|due|submissions?|submit|hand[- ]?in|assignments?|homework|essays?)\b/i],
  ["CLASS", /\b(lectures?|class(?:es)?|seminars?|labs?|tutorials?|recitations?|workshops?|courses?)\b/i],
  ["STUDY_SESSION", /\b(study|studying|revision|revise|review|reading)\b/i],
];

/** A Google event has no type: guessed from its title, then its description; anything else is a MEETING. */
export function guessEventType(title: string, description: string | null): EventType {
  for (const text of [title, description ?? ""]) {
    const match = TYPE_WORDS.find(([, words]) => words.test(text));
    if (match) return match[0];
  }
  return "MEETING";
}

/** What a newly imported event starts with: its guessed type, Google's colour, Google's reminder if it set one. */
export function importDefaults(event: GoogleEvent, fields: ImportedFields): ImportDefaults {
  return {
    eventType: guessEventType(fields.title, fields.description),
    color: (event.colorId && GOOGLE_EVENT_COLORS[event.colorId]) || GOOGLE_DEFAULT_COLOR,
    reminderMinutes: event.reminderMinutes ?? null,
  };
}

/**
 * The Google id of a study event pushed to Google: its UUID's hex digits, which are valid in Google's id alphabet
 * (base32hex: 0-9 and a-v, 5 to 1024 characters).
 */
export const googleEventIdFor = (studyEventId: string): string => studyEventId.replace(/-/g, "").toLowerCase();

/** The day after a `YYYY-MM-DD` date. */
const nextDay = (date: string): string => new Date(new Date(`${date}T00:00:00.000Z`).getTime() + DAY_MS).toISOString().slice(0, 10);

/**
 * What Google gets for a study event. Google needs an end: an event without one (a deadline) ends when it
 * starts, and an all-day event without one lasts its day. A colour is sent only when it is one of Google's.
 */
export function toGoogleEvent(event: CalendarEvent): GoogleEventWrite {
  const allDay = event.allDayDate !== null;
  const start: GoogleEventTime = allDay ? { date: event.allDayDate as string } : { dateTime: event.startDate };
  let end: GoogleEventTime;
  if (allDay) {
    const endDate = event.endDate?.toISOString().slice(0, 10);
    end = { date: endDate && endDate > (event.allDayDate as string) ? endDate : nextDay(event.allDayDate as string) };
  } else {
    end = { dateTime: event.endDate ?? event.startDate };
  }
  const color = event.color.toLowerCase();
  const colorId = Object.entries(GOOGLE_EVENT_COLORS).find(([, hex]) => hex === color)?.[0] ?? null;
  return {
    id: googleEventIdFor(event.id),
    summary: event.title,
    description: event.description,
    location: event.location,
    start,
    end,
    colorId,
    reminderMinutes: event.reminderMinutes,
    studyEventId: event.id,
  };
}
