/**
 * Time-zone day arithmetic, once for every process (the dashboard's "today", a syllabus's class times): a calendar
 * day is a whole number of days since 1970-01-01 (so "the day after" is `day + 1`), and a wall-clock time in an IANA
 * zone converts to the instant it names, daylight saving time included. Pure: Intl only, no I/O.
 */

const DAY_MS = 86_400_000;

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

/** Whether Intl knows the IANA zone name ("Pacific/Auckland", "UTC"): an unknown one makes every conversion meaningless. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    // Intl throws a RangeError for a zone it does not know: that is the answer.
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
  const parts = formatter(timeZone).formatToParts(new Date(instantMs));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value ?? 0);
  const asUtc = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"));
  const offset = asUtc - Math.floor(instantMs / 1000) * 1000;
  offsets.set(slot, offset);
  return offset;
}

/**
 * The instant at which the wall clock of `timeZone` shows day + hour:minute, resolved as RFC 5545 and Temporal's
 * "compatible" do around a daylight saving change: a time the clocks skip (the spring-forward gap, or a midnight
 * some zones skip) is read with the offset before the change, so it lands after the gap (02:30 → 03:30); a time
 * that happens twice (fall back) is the earlier one.
 */
export function zonedInstant(day: number, hour: number, minute: number, timeZone: string): Date {
  const wall = day * DAY_MS + (hour * 60 + minute) * 60_000;
  // Offsets change at most once a day: the one before and the one after cover every case.
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  const valid = [...new Set([before, after])].map((offset) => wall - offset).filter((instant) => wall - offsetAt(instant, timeZone) === instant);
  return new Date(valid.length ? Math.min(...valid) : wall - before);
}

/** The local calendar day (days since 1970-01-01) of an instant in a zone. */
export function localDay(instant: Date, timeZone: string): number {
  const offset = offsetAt(instant.getTime(), timeZone);
  return Math.floor((instant.getTime() + offset) / DAY_MS);
}

/** [start of today, start of tomorrow) in the zone: 23 or 25 hours on the days daylight saving time changes. */
export function todayIn(timeZone: string, now: Date): { start: Date; end: Date } {
  const today = localDay(now, timeZone);
  return { start: zonedInstant(today, 0, 0, timeZone), end: zonedInstant(today + 1, 0, 0, timeZone) };
}
