/**
 * Calendar arithmetic for the syllabus parser: a local calendar day as a whole number of days since 1970-01-01
 * (so "the day after" is `day + 1` and comparisons are numeric), and the conversion of a wall-clock time in an
 * IANA time zone to the instant it names, daylight saving time included.
 */

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of the calendar date year-month-day (month 1-12). */
export function dayNumber(year: number, month: number, day: number): number {
  return Math.floor(Date.UTC(year, month - 1, day) / DAY_MS);
}

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

export function calendarDate(day: number): CalendarDate {
  const date = new Date(day * DAY_MS);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** YYYY-MM-DD of a day number. */
export function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(day: number): number {
  return new Date(day * DAY_MS).getUTCDay();
}

/** Midnight UTC of a day: how an all-day item's date travels (the calendar's all-day convention). */
export function utcMidnight(day: number): Date {
  return new Date(day * DAY_MS);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let cached = formatters.get(timeZone);
  if (!cached) {
    cached = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, cached);
  }
  return cached;
}

/** Whether Intl knows the IANA zone name (an unknown one makes every conversion meaningless). */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

const offsets = new Map<string, number>();

/**
 * The zone's offset from UTC, in ms, at an instant (positive east of Greenwich). Zones change offset on the hour
 * or half hour, so the offset is remembered per quarter hour: a term's hundreds of class meetings ask the same
 * few hours again and again.
 */
function offsetAt(instantMs: number, timeZone: string): number {
  const slot = `${timeZone}\n${Math.floor(instantMs / 900_000)}`;
  const known = offsets.get(slot);
  if (known !== undefined) return known;
  if (offsets.size > 50_000) offsets.clear();
  const offset = computeOffset(instantMs, timeZone);
  offsets.set(slot, offset);
  return offset;
}

function computeOffset(instantMs: number, timeZone: string): number {
  const parts = formatter(timeZone).formatToParts(new Date(instantMs));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
  const asUtc = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"));
  return asUtc - Math.floor(instantMs / 1000) * 1000;
}

/**
 * The instant at which the wall clock of `timeZone` shows day + hour:minute. The second pass takes the offset
 * that holds at the first guess, which settles it on the right side of a DST change (a time in the
 * spring-forward gap lands after it).
 */
export function zonedInstant(day: number, hour: number, minute: number, timeZone: string): Date {
  const wall = day * DAY_MS + (hour * 60 + minute) * 60_000;
  const guess = wall - offsetAt(wall, timeZone);
  return new Date(wall - offsetAt(guess, timeZone));
}

/** The local calendar day of an instant in a zone. */
export function localDay(instant: Date, timeZone: string): number {
  const offset = offsetAt(instant.getTime(), timeZone);
  return Math.floor((instant.getTime() + offset) / DAY_MS);
}
