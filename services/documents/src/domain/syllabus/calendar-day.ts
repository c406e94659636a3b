/**
 * Calendar arithmetic for the syllabus parser: a local calendar day as a whole number of days since 1970-01-01
 * (so "the day after" is `day + 1` and comparisons are numeric). Zones (a wall-clock time to the instant it names)
 * are @study/platform/zoned-time's, on the same day numbers.
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
