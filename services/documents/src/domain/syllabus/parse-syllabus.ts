import { createHash } from "node:crypto";
import * as chrono from "chrono-node";
import { RRule, type Weekday } from "rrule";
import { isTimeZone, localDay, zonedInstant } from "@study/platform/zoned-time";
import { calendarDate, dayNumber, isoDate, utcMidnight, weekdayOf, type CalendarDate } from "./calendar-day";
import {
  ADMINISTRATIVE,
  classify,
  classKind,
  cleanPhrase,
  columnRole,
  findLocation,
  findTimes,
  findWeekdays,
  isDeliverableName,
  isReleased,
  namesMeeting,
  titleFor,
  withoutTermWords,
  type ColumnRole,
  type LineKind,
  type SyllabusItemType,
  type TimeOfDay,
} from "./vocabulary";

export type { SyllabusItemType } from "./vocabulary";

/** A calendar item read from a syllabus. The rules behind each field are in services/documents/README.md ("Syllabus"). */
export interface SyllabusItem {
  /**
   * Stable across re-uploads of the same syllabus: a hash of the normalised source line (and the part of it that
   * names the item), the type, the local date and the stated time; never a position in the list.
   */
  key: string;
  /** 1-255 characters: "Lecture: Plate tectonics", "Midterm Exam", "Problem Set 3 due", "Office hours". */
  title: string;
  type: SyllabusItemType;
  /** The instant the item starts; for an all-day item, midnight UTC of its date (see localDate). */
  startTime: Date;
  /** The end when the text gives one (10:00-11:15); for a multi-day all-day item, midnight UTC after its last day; else null. */
  endTime: Date | null;
  /** A date without a time ("Final project due Dec 12"). */
  allDay: boolean;
  location: string | null;
  /** The source line (or sentence), trimmed, at most 1000 characters. */
  description: string;
  /** YYYY-MM-DD: the item's date in the syllabus's time zone. */
  localDate: string;
}

export interface ParseSyllabusOptions {
  /** The upload date: the year of the term when the document names none. */
  referenceDate: Date;
  /** IANA zone the syllabus's times are local to, e.g. "America/New_York". */
  timeZone: string;
  /** At most this many items (default 500): the earliest ones are kept. */
  maxItems?: number;
  /**
   * Lines read at most (default 5000; the rest count as skipped). Parsing is synchronous and costs about 1-2 ms
   * a line on a busy 2-core machine, so this bounds one call to a few seconds.
   */
  maxLines?: number;
}

export interface ParsedSyllabus {
  items: SyllabusItem[];
  /** The year the term starts in (Fall 2026 → 2026, "2026-2027" → 2026). */
  termYear: number;
  /** Dated lines (or sentences) that produced nothing, lines over 1000 characters, lines past maxLines. */
  skippedLines: number;
}

export const DEFAULT_MAX_ITEMS = 500;
const MAX_LINE_LENGTH = 1000;
export const DEFAULT_MAX_LINES = 5000;
/** A recurring pattern spans at most this many days (a term, or a long year). */
const MAX_SERIES_DAYS = 366;

interface RawDate {
  year: number | null;
  month: number;
  day: number;
}

interface ClockSpan {
  start: TimeOfDay;
  end: TimeOfDay | null;
}

/** A date chrono found in a piece of text, before its year is decided. */
interface RawMention {
  index: number;
  length: number;
  start: RawDate;
  end: RawDate | null;
  time: ClockSpan | null;
}

interface Mention {
  index: number;
  /** End of the mention in the text, attached time included. */
  end: number;
  startDay: number;
  endDay: number | null;
  time: ClockSpan | null;
}

interface Cell {
  text: string;
  offset: number;
}

interface Unit {
  text: string;
  cells: Cell[];
  separator: "pipe" | "tab" | "space" | "none";
}

/** A dated item before merging with the recurring ones. */
interface Candidate {
  key: string;
  type: SyllabusItemType;
  title: string;
  day: number;
  endDay: number | null;
  time: ClockSpan | null;
  location: string | null;
  description: string;
  /** A schedule row's topic ("Plate tectonics"): merged into that day's class meeting when there is one. */
  topic: string | null;
  /** The row's own title when it names its kind ("Lab 3: Titration"). */
  namedTitle: string | null;
  weekRow: boolean;
  /** Index of the recurring series an occurrence belongs to, else -1. */
  series: number;
}

interface Series {
  type: SyllabusItemType;
  title: string;
  days: number[];
  time: ClockSpan | null;
  from: number | null;
  until: number | null;
  location: string | null;
  description: string;
  keySource: string;
}

interface YearWindow {
  startYear: number;
  startMonth: number;
}

function yearFor(window: YearWindow, month: number): number {
  return month >= window.startMonth ? window.startYear : window.startYear + 1;
}

const SEASONS: Record<string, number> = { fall: 7, autumn: 7, spring: 11, summer: 1, winter: 10 };

interface Term {
  window: YearWindow;
  termYear: number | null;
}

/**
 * The 12-month window undated dates fall into: from the term's name ("Fall 2026" → July 2026 to June 2027, so
 * January finals land in 2027), an academic year ("2026-2027"), the earliest full date of the document, or
 * else the upload date (four months back to eight ahead).
 */
function inferTerm(text: string, explicitDates: CalendarDate[], referenceDay: CalendarDate): Term {
  const season =
    /\b(fall|autumn|spring|summer|winter)\s+(?:(?:semester|term|quarter|session)\s*,?\s*)?(\d{4}|'\d{2})\b/i.exec(text) ??
    /\b(\d{4})\s+(fall|autumn|spring|summer|winter)\b/i.exec(text);
  if (season) {
    const [name, yearText] = /^\d/.test(season[1]) ? [season[2], season[1]] : [season[1], season[2]];
    const year = yearText.startsWith("'") ? 2000 + Number(yearText.slice(1)) : Number(yearText);
    const startMonth = SEASONS[name.toLowerCase()];
    // Spring's window opens in November and winter's in October of the year before: their Decembers precede them.
    const startYear = startMonth >= 10 ? year - 1 : year;
    return { window: { startYear, startMonth }, termYear: year };
  }
  for (const match of text.matchAll(/\b(20\d{2})\s*[-–/]\s*(20\d{2}|\d{2})\b/g)) {
    const first = Number(match[1]);
    const second = Number(match[2].length === 2 ? `${match[1].slice(0, 2)}${match[2]}` : match[2]);
    if (second === first + 1) return { window: { startYear: first, startMonth: 7 }, termYear: first };
  }
  const anchor =
    explicitDates.length > 0
      ? explicitDates.reduce((earliest, date) =>
          dayNumber(date.year, date.month, date.day) < dayNumber(earliest.year, earliest.month, earliest.day) ? date : earliest,
        )
      : referenceDay;
  const startMonth = ((anchor.month - 4 + 11) % 12) + 1;
  return { window: { startYear: startMonth > anchor.month ? anchor.year - 1 : anchor.year, startMonth }, termYear: null };
}

function rawDate(components: chrono.ParsedComponents): RawDate | null {
  const month = components.get("month");
  const day = components.get("day");
  if (month === null || day === null || !components.isCertain("month") || !components.isCertain("day")) return null;
  const year = components.isCertain("year") ? components.get("year") : null;
  return { year, month, day };
}

function clockOf(components: chrono.ParsedComponents): TimeOfDay | null {
  if (!components.isCertain("hour")) return null;
  return { hour: components.get("hour") ?? 0, minute: components.get("minute") ?? 0 };
}

/** chrono's dates of a text (strict mode: formal dates, no "today" or bare weekdays). */
function rawMentions(text: string, reference: Date): RawMention[] {
  const mentions: RawMention[] = [];
  // Every date strict mode reads has a digit; most table cells have none, and chrono is the costly part.
  if (!/\d/.test(text)) return mentions;
  for (const result of chrono.strict.parse(text, reference)) {
    const start = rawDate(result.start);
    if (!start) continue;
    const end = result.end ? rawDate(result.end) : null;
    const startClock = clockOf(result.start);
    const endClock = result.end ? clockOf(result.end) : null;
    mentions.push({
      index: result.index,
      length: result.text.length,
      start,
      end,
      time: startClock ? { start: startClock, end: endClock } : null,
    });
  }
  return mentions;
}

function validDay(year: number, month: number, day: number): number | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return dayNumber(year, month, day);
}

/** A time right after a date: "December 12 by 11:59 pm", "Oct 15, 7-9pm", "Sep 18 at noon". */
function adjacentTime(text: string, from: number): { span: ClockSpan; end: number } | null {
  const after = text.slice(from, from + 40);
  const time = findTimes(after, false)[0];
  if (!time) return null;
  if (!/^[\s,;(@]*(?:(?:at|by|from|starting\s+at|before)\s*)?$/i.test(after.slice(0, time.index))) return null;
  return { span: { start: time.start, end: time.end }, end: from + time.index + time.length };
}

const DANGLING =
  /(?:,|\b(?:for|on|by|at|in|the|a|an|and|or|of|to|from|with|is|are|be|will|during|until|before|after|between|than|your|our|their|its|this|that|no|not))$/i;
const WEEK_MARKER = /^\s*(?:week|wk)\s*\d{1,2}\b|^\s*\d{1,2}\s*$/i;
const BULLET = /^\s*(?:[-–—•*·▪►o]\s+|\d{1,2}[.)]\s+)/;
const SPLIT_PARTS = /\s*(?:;|\||\(|\)|\.\s+(?=[A-Z]))\s*/;

interface Context {
  window: YearWindow;
  reference: Date;
  cache: Map<string, RawMention[]>;
  candidates: Candidate[];
  series: Series[];
  excluded: Set<number>;
  termStart: number | null;
  termEnd: number | null;
  /** Days of schedule rows: the class calendar when the document gives no term dates. */
  rowDays: number[];
  header: { roles: (ColumnRole | null)[]; offsets: number[]; separator: Unit["separator"] } | null;
  headingKind: LineKind | null;
}

function normalise(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2010-\u2015]/g, "-")
    .replace(/[|\t]/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** What an item's key is made of besides its date and time: the normalised source line and part, the type. */
function keyBase(source: string, part: string, type: SyllabusItemType): string {
  return [normalise(source), normalise(part), type].join("\n");
}

function itemKey(base: string, day: number, time: ClockSpan | null): string {
  const clock = time ? `${String(time.start.hour).padStart(2, "0")}:${String(time.start.minute).padStart(2, "0")}` : "all-day";
  return createHash("sha256")
    .update(`${base}\n${isoDate(day)}\n${clock}`)
    .digest("hex")
    .slice(0, 32);
}

function mentionsOf(context: Context, text: string): Mention[] {
  let raw = context.cache.get(text);
  if (!raw) {
    raw = rawMentions(text, context.reference);
    context.cache.set(text, raw);
  }
  const mentions: Mention[] = [];
  for (const mention of raw) {
    const startYear = mention.start.year ?? yearFor(context.window, mention.start.month);
    const startDay = validDay(startYear, mention.start.month, mention.start.day);
    if (startDay === null) continue;
    let endDay: number | null = null;
    if (mention.end) {
      const endYear = mention.end.year ?? yearFor(context.window, mention.end.month);
      endDay = validDay(endYear, mention.end.month, mention.end.day);
      if (endDay !== null && endDay < startDay) endDay = validDay(endYear + 1, mention.end.month, mention.end.day);
      if (endDay !== null && (endDay === startDay || endDay - startDay > MAX_SERIES_DAYS)) endDay = null;
    }
    let end = mention.index + mention.length;
    if (endDay === null && mention.time === null) {
      // chrono leaves "Oct 12–13" at Oct 12: the same month's "–13" closes the range.
      const suffix = /^\s*(?:-|–|—|to|through|thru)\s*(\d{1,2})(?![\d:])(?!\s*(?:[ap]\.?m\b|[ap]\.m\.))/i.exec(text.slice(end));
      const lastDay = suffix ? validDay(startYear, mention.start.month, Number(suffix[1])) : null;
      if (suffix && lastDay !== null && lastDay > startDay && lastDay - startDay <= 31) {
        endDay = lastDay;
        end += suffix[0].length;
      }
    }
    let time = mention.time;
    if (!time) {
      const adjacent = adjacentTime(text, end);
      if (adjacent) {
        time = adjacent.span;
        end = adjacent.end;
      }
    }
    mentions.push({ index: mention.index, end, startDay, endDay, time });
  }
  return mentions;
}

function mask(text: string, mentions: Mention[]): string {
  let masked = text;
  for (const mention of mentions) {
    masked = masked.slice(0, mention.index) + " ".repeat(mention.end - mention.index) + masked.slice(mention.end);
  }
  return masked;
}

/** Whether the text before a date is only a list marker or a week label: "Week 3 – Sep 15: Plate tectonics". */
function dateFirst(text: string, mention: Mention): boolean {
  return /^[\s\-–—•*·▪(#]*(?:(?:week|wk|session|class|lecture|day)\s*\d{1,2}[\s:.\-–—)]*)?(?:\d{1,2}[.)]?\s*)?(?:(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s*)?[\s\-–—:(]*$/i.test(
    text.slice(0, mention.index),
  );
}

function trivialCell(text: string): boolean {
  return /^[\s\-–—,.:;()#/*]*(?:(?:week|wk)\s*)?\d{0,2}[\s\-–—,.:;()#/*]*$/i.test(
    text.replace(/\b(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\b\.?/gi, ""),
  );
}

function addCandidate(
  context: Context,
  fields: Omit<Candidate, "key" | "topic" | "namedTitle" | "weekRow" | "series" | "description"> &
    Partial<Pick<Candidate, "topic" | "namedTitle" | "weekRow">>,
  source: string,
  part: string,
): void {
  context.candidates.push({
    key: itemKey(keyBase(source, part, fields.type), fields.day, fields.time),
    topic: null,
    namedTitle: null,
    weekRow: false,
    series: -1,
    description: source.slice(0, MAX_LINE_LENGTH),
    ...fields,
  });
}

function applyTermKind(context: Context, kind: LineKind, mention: Mention): void {
  if (kind === "TERM_START") {
    context.termStart = mention.startDay;
    if (mention.endDay !== null) context.termEnd = mention.endDay;
  } else {
    context.termEnd = mention.endDay ?? mention.startDay;
  }
}

function exclude(context: Context, mention: Mention): void {
  for (let day = mention.startDay; day <= (mention.endDay ?? mention.startDay); day++) context.excluded.add(day);
}

/**
 * A schedule row: one date (the row's) and parts that each say what happens that day — a topic (a class
 * meeting), something due, an exam, a holiday. Parts with a date of their own are read on their own.
 */
function readRow(context: Context, source: string, rowDate: Mention, parts: { text: string; role: ColumnRole | null }[], weekRow: boolean): boolean {
  context.rowDays.push(rowDate.startDay);
  let produced = false;
  const topicParts: string[] = [];
  let topicTime: ClockSpan | null = null;
  let topicLocation: string | null = null;
  let examDay = false;
  let holiday = false;
  for (const { text, role } of parts) {
    if (trivialCell(text) || role === "WEEK" || role === "DATE") continue;
    // "Research proposal (final)" is one thing; other parentheses set a part apart.
    // So is "Quiz 1 (online, due 9 AM)": a parenthesis of qualifiers and a time belongs to what it follows.
    const qualified = text
      .replace(/\s*\(((?:rough\s+|final\s+)?(?:final|draft|revised|revision|version))\)/gi, " $1")
      .replace(/\s*\(((?:online|in[- ]class|in\s+lecture|take-home|on\s+canvas|due|by|at|before|[\s,:.]|\d|[ap]\.?m\.?|noon|midnight)+)\)/gi, " $1");
    for (const part of qualified.split(SPLIT_PARTS)) {
      if (trivialCell(part)) continue;
      if (mentionsOf(context, part).length > 0) {
        produced = readClause(context, source, part) || produced;
        continue;
      }
      let kind = classify(part);
      if (role === "DUE" && (kind === null || kind === "CLASS") && !isReleased(part)) kind = "DEADLINE";
      if (kind === null && isDeliverableName(part)) kind = "DEADLINE";
      if (role === "READING" && kind !== "EXAM" && !(kind === "DEADLINE" && /\bdue\b/i.test(part))) continue;
      if (kind === "HOLIDAY") {
        exclude(context, rowDate);
        holiday = true;
        produced = true;
        if (namesMeeting(part)) {
          addCandidate(
            context,
            {
              type: "MEETING",
              title: titleFor("MEETING", part),
              day: rowDate.startDay,
              endDay: rowDate.endDay,
              time: null,
              location: findLocation(part),
            },
            source,
            part,
          );
        }
        continue;
      }
      if (kind === "TERM_START" || kind === "TERM_END") {
        applyTermKind(context, kind, rowDate);
        produced = true;
        // A table row's "Last class: review" still names the topic of that class.
        const rest = cleanPhrase(withoutTermWords(part));
        if (parts.length > 1 && rest.length > 0 && classify(rest) === null) topicParts.push(rest);
        continue;
      }
      const time = rowDate.time ?? spanOf(findTimes(part, false)[0]);
      const location = findLocation(part);
      if (kind === "EXAM" || kind === "DEADLINE" || kind === "MEETING") {
        const title = titleFor(kind, part);
        addCandidate(context, { type: kind, title, day: rowDate.startDay, endDay: rowDate.endDay, time, location }, source, part);
        // An exam (not a quiz) is that day's class meeting: the row's other words describe the exam.
        if (kind === "EXAM" && !/^quiz/i.test(title)) examDay = true;
        produced = true;
        continue;
      }
      if (/^(?:in[- ]class|in\s+(?:lecture|recitation|lab|section)|take-home|tba|tbd|optional)$/i.test(part.trim())) continue;
      // "(Marsh Hall atrium)": a place, not a topic.
      if (location !== null && part.trim().split(/\s+/).length <= 4 && /\b(hall|room|building|center|centre|auditorium|library)\b/i.test(part)) {
        topicLocation = cleanPhrase(part, 80);
        continue;
      }
      if (role === "DUE" || role === "OTHER" || ADMINISTRATIVE.test(part) || isReleased(part) || READING.test(part)) continue;
      if (topicParts.length === 0 && role !== null && role !== "TOPIC" && parts.some((other) => other.role === "TOPIC")) continue;
      topicParts.push(cleanPhrase(part, 100));
      topicTime ??= time;
      topicLocation ??= location;
    }
  }
  const topic = cleanPhrase(topicParts.filter((part) => part.length > 0).join("; "), 100);
  if (topic.length === 0 || examDay || holiday) return produced;
  const kindWord = classKind(topic);
  const kindAt = kindWord === null ? -1 : topic.toLowerCase().indexOf(kindWord.toLowerCase().split(" ")[0]);
  const named = kindAt >= 0 && kindAt <= 2 ? topic : null;
  addCandidate(
    context,
    {
      type: "CLASS",
      title: named ?? `Lecture: ${topic}`,
      day: rowDate.startDay,
      endDay: rowDate.endDay,
      time: topicTime,
      location: topicLocation,
      topic,
      namedTitle: named,
      weekRow,
    },
    source,
    topic,
  );
  return true;
}

/** A readings cell: "Ch. 3", "pp. 45-60", "Chapter 4". */
const READING = /^\s*(?:ch(?:apters?)?s?\.?|pp?\.|pages?|read(?:ing)?s?:?|sections?\s+\d|§)\s*\d/i;

function spanOf(time: { start: TimeOfDay; end: TimeOfDay | null } | undefined): ClockSpan | null {
  return time ? { start: time.start, end: time.end } : null;
}

/** A repeating pattern: weekdays (plural, listed, "every") with an optional time and date range. */
function readSeries(context: Context, source: string, clause: string, masked: string, mentions: Mention[], kind: LineKind | null): boolean {
  const groups = findWeekdays(masked);
  if (groups.length === 0) return false;
  const times = findTimes(masked, true);
  // chrono may have taken the time into a date ("10:00-11:15 AM, Oct 26 – Nov 9").
  const dateTime = mentions.find((mention) => mention.time !== null)?.time;
  if (times.length === 0 && dateTime) times.push({ start: dateTime.start, end: dateTime.end, index: 0, length: 0 });
  const recurring = groups.some((group) => group.recurring) || (mentions.length === 0 && times.length > 0);
  if (!recurring) return false;
  let type: SyllabusItemType | null = null;
  if (kind === "CLASS" || kind === "MEETING" || kind === "EXAM" || kind === "DEADLINE") type = kind;
  else if (kind === null) {
    const heading = context.headingKind;
    type = heading === "CLASS" || heading === "MEETING" ? heading : times.length > 0 ? "CLASS" : null;
  }
  if (type === null) return false;
  let from: number | null = null;
  let until: number | null = null;
  const ranged = mentions.find((mention) => mention.endDay !== null);
  if (ranged) {
    from = ranged.startDay;
    until = ranged.endDay;
  } else if (mentions.length >= 2) {
    from = mentions[0].startDay;
    until = mentions[mentions.length - 1].startDay;
  } else if (mentions.length === 1) {
    const before = clause.slice(Math.max(0, mentions[0].index - 16), mentions[0].index);
    if (/\b(until|through|thru|till|ending|to|by)\s*$/i.test(before)) until = mentions[0].startDay;
    else from = mentions[0].startDay;
  }
  const title = type === "CLASS" ? (classKind(masked) ?? "Class") : titleFor(type, masked);
  const location = findLocation(clause);
  // "Mon 2-3pm, Wed 10-11am": each weekday group takes its own time when the counts match.
  const paired = times.length >= 2 && times.length === groups.length;
  groups.forEach((group, index) => {
    const time = paired ? times[index] : times[0];
    const last = context.series.at(-1);
    if (!paired && index > 0 && last) {
      for (const day of group.days) if (!last.days.includes(day)) last.days.push(day);
      return;
    }
    context.series.push({
      type,
      title,
      days: [...group.days],
      time: spanOf(time),
      from,
      until,
      location,
      description: source.slice(0, MAX_LINE_LENGTH),
      keySource: `${source}\n${clause}\n${index}`,
    });
  });
  return true;
}

/** A sentence or clause: a recurring pattern, a schedule row ("Sep 15: Plate tectonics"), or dated prose. */
function readClause(context: Context, source: string, clause: string, inherited: LineKind | null = null): boolean {
  const mentions = mentionsOf(context, clause);
  const masked = mask(clause, mentions);
  const kind = classify(masked) ?? inherited;
  if (!clause.includes(";") && readSeries(context, source, clause, masked, mentions, kind)) return true;
  if (mentions.length === 0 && !clause.includes(";")) return false;
  if (mentions.length > 0 && dateFirst(clause, mentions[0]) && kind !== "TERM_START" && kind !== "TERM_END") {
    const rest = clause.slice(mentions[0].end);
    const weekRow = WEEK_MARKER.test(clause.slice(0, mentions[0].index).replace(/[\s\-–—:(]+$/, ""));
    return readRow(context, source, mentions[0], [{ text: rest, role: null }], weekRow);
  }
  const clauses = clause.split(/\s*;\s*/);
  if (clauses.length > 1) {
    // "Office hours: Tue 3-4pm; Thu 1-2pm": a clause that names nothing continues the one before it.
    let produced = false;
    let previous: LineKind | null = null;
    for (const part of clauses) {
      if (!part.trim()) continue;
      produced = readClause(context, source, part, previous) || produced;
      previous = classify(mask(part, mentionsOf(context, part))) ?? previous;
    }
    return produced;
  }
  if (kind === null) return false;
  if (kind === "HOLIDAY") {
    for (const mention of mentions) exclude(context, mention);
    return true;
  }
  if (kind === "TERM_START" || kind === "TERM_END") {
    applyTermKind(context, kind, mentions[0]);
    if (mentions.length > 1 && kind === "TERM_START" && mentions[0].endDay === null) {
      context.termEnd = mentions[mentions.length - 1].startDay;
    }
    return true;
  }
  const location = findLocation(masked);
  const leading = dateFirst(clause, mentions[0]);
  mentions.forEach((mention, index) => {
    const previousEnd = index > 0 ? mentions[index - 1].end : 0;
    const nextStart = index + 1 < mentions.length ? mentions[index + 1].index : clause.length;
    const local = leading ? clause.slice(mention.end, nextStart) : clause.slice(previousEnd, mention.index);
    const titleText = mentions.length > 1 && classify(local) === kind ? local : masked;
    const time = mention.time ?? (mentions.length === 1 ? spanOf(findTimes(masked, false)[0]) : null);
    addCandidate(
      context,
      { type: kind, title: titleFor(kind, titleText), day: mention.startDay, endDay: mention.endDay, time, location },
      source,
      clause,
    );
  });
  return true;
}

function readTableRow(context: Context, unit: Unit): boolean {
  const cellMentions = unit.cells.map((cell) => mentionsOf(context, cell.text));
  if (cellMentions.every((mentions) => mentions.length === 0)) {
    const roles = unit.cells.map((cell) => columnRole(cell.text));
    if (roles.filter((role) => role !== null).length >= Math.max(2, Math.ceil(unit.cells.length * 0.6))) {
      context.header = { roles, offsets: unit.cells.map((cell) => cell.offset), separator: unit.separator };
      return true;
    }
    return readClause(context, unit.text, unit.cells.map((cell) => cell.text).join(", "));
  }
  const dateCell = unit.cells.findIndex((cell, index) => {
    const mentions = cellMentions[index];
    return mentions.length === 1 && trivialCell(mask(cell.text, mentions));
  });
  if (dateCell < 0) return readClause(context, unit.text, unit.cells.map((cell) => cell.text).join(", "));
  const rowDate = cellMentions[dateCell][0];
  const parts = unit.cells
    .map((cell, index) => ({ text: cell.text, role: roleOf(context, unit, index), index }))
    .filter((part) => part.index !== dateCell);
  const weekRow = parts.some((part) => part.role === "WEEK" || WEEK_MARKER.test(part.text)) || /\bweek\b/i.test(unit.cells[dateCell].text);
  return readRow(context, unit.text, rowDate, parts, weekRow);
}

function roleOf(context: Context, unit: Unit, index: number): ColumnRole | null {
  const header = context.header;
  if (!header) return null;
  if (unit.separator !== "space" || header.separator !== "space") {
    return header.separator === unit.separator ? (header.roles[index] ?? null) : null;
  }
  const offset = unit.cells[index].offset;
  let role: ColumnRole | null = header.roles[0] ?? null;
  header.offsets.forEach((start, column) => {
    if (start <= offset + 2) role = header.roles[column] ?? null;
  });
  return role;
}

function splitCells(line: string): Pick<Unit, "cells" | "separator"> {
  if (line.includes("|")) {
    const pieces = line.split("|");
    let offset = 0;
    const cells = pieces.map((piece) => {
      const cell = { text: piece.trim(), offset };
      offset += piece.length + 1;
      return cell;
    });
    while (cells.length > 0 && cells[0].text === "") cells.shift();
    while (cells.length > 0 && cells[cells.length - 1].text === "") cells.pop();
    return { cells, separator: "pipe" };
  }
  if (line.includes("\t")) {
    let offset = 0;
    const cells = line.split("\t").map((piece) => {
      const cell = { text: piece.trim(), offset };
      offset += piece.length + 1;
      return cell;
    });
    // Empty cells stay: a row's cells line up with the header's by position.
    while (cells.length > 0 && cells[cells.length - 1].text === "") cells.pop();
    return { cells, separator: "tab" };
  }
  const cells = [...line.matchAll(/\S+(?: \S+)*/g)].map((match) => ({ text: match[0], offset: match.index }));
  return { cells, separator: cells.length > 1 ? "space" : "none" };
}

const SENTENCE_END = /(?<=[.!?])\s+(?=[A-Z"“(])/;

/** Lines into units: table rows as they are, wrapped prose joined into paragraphs and cut into sentences. */
function buildUnits(text: string, maxLines: number): { units: Unit[]; overLong: number } {
  const units: Unit[] = [];
  let overLong = 0;
  let paragraph: string | null = null;
  const flush = () => {
    if (paragraph === null) return;
    for (const sentence of paragraph.split(SENTENCE_END)) {
      const trimmed = sentence.trim();
      if (!trimmed) continue;
      if (trimmed.length > MAX_LINE_LENGTH) overLong++;
      else units.push({ text: trimmed, cells: [{ text: trimmed, offset: 0 }], separator: "none" });
    }
    paragraph = null;
  };
  const lines = text.split(/\r\n|\r|\n/);
  const nonBlank = (from: number) => lines.slice(from).filter((line) => line.trim() !== "").length;
  if (lines.length > maxLines) overLong += nonBlank(maxLines);
  for (const raw of lines.slice(0, maxLines)) {
    const line = raw.replace(/[\u00a0\u2007\u202f]/g, " ").replace(/[\f\v]/g, "");
    const trimmed = line.trim();
    if (!trimmed) {
      flush();
      continue;
    }
    if (trimmed.length > MAX_LINE_LENGTH) {
      flush();
      overLong++;
      continue;
    }
    const { cells, separator } = splitCells(line);
    if (cells.length >= 2) {
      flush();
      units.push({ text: trimmed, cells, separator });
      continue;
    }
    const current: string | null = paragraph;
    // A wrapped sentence goes on in lower case, or after a word no sentence ends with ("held on / Thursday").
    const continues =
      current !== null &&
      !/[.!?:;]$/.test(current) &&
      !BULLET.test(trimmed) &&
      !/^(week|wk)\s*\d/i.test(trimmed) &&
      (/^[a-z]/.test(trimmed) || (current.length >= 30 && DANGLING.test(current)));
    if (current !== null && continues) paragraph = `${current} ${trimmed}`;
    else {
      flush();
      paragraph = trimmed;
    }
  }
  flush();
  return { units, overLong };
}

const RRULE_DAYS: Weekday[] = [RRule.SU, RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA];
const DAY_MS = 86_400_000;
const CLASS_PREFERENCE = ["Lecture", "Class", "Seminar", "Discussion", "Studio", "Workshop"];

/** The occurrences of every series between its bounds (the term's when the line gives none). */
function expandSeries(context: Context, limit: number): { occurrences: Candidate[]; unbounded: number } {
  const occurrences: Candidate[] = [];
  let unbounded = 0;
  // The class meetings' own range is the term for office hours and the like; else the document's dates.
  const bounded = context.series.find((series) => series.type === "CLASS" && series.from !== null && series.until !== null);
  let earliest: number | null = context.termStart ?? bounded?.from ?? null;
  let latest: number | null = context.termEnd ?? bounded?.until ?? null;
  const explicitEnd = latest !== null;
  // Else the schedule's rows are the class calendar; else every date of the document.
  if (context.rowDays.length > 0) {
    earliest ??= Math.min(...context.rowDays);
    latest ??= Math.max(...context.rowDays);
  }
  if (earliest === null || latest === null) {
    const days: number[] = [];
    for (const candidate of context.candidates) days.push(candidate.day, candidate.endDay ?? candidate.day);
    for (const series of context.series) for (const day of [series.from, series.until]) if (day !== null) days.push(day);
    days.push(...context.excluded);
    if (earliest === null && days.length > 0) earliest = Math.min(...days);
    if (latest === null && days.length > 0) latest = Math.max(...days);
  }
  const finals = context.candidates.filter((candidate) => candidate.type === "EXAM" && candidate.title === "Final Exam");
  if (!explicitEnd && latest !== null && finals.length > 0) {
    // Classes stop before the final exam when the document says nothing else.
    latest = Math.min(latest, Math.min(...finals.map((final) => final.day)) - 1);
  }
  context.series.forEach((series, index) => {
    const from = series.from ?? earliest;
    const until = series.until ?? latest;
    if (from === null || until === null || until < from || until - from > MAX_SERIES_DAYS) {
      unbounded++;
      return;
    }
    const clock = series.time?.start ?? { hour: 0, minute: 0 };
    const base = keyBase(series.keySource, "", series.type);
    const rule = new RRule({
      freq: RRule.WEEKLY,
      byweekday: series.days.map((day) => RRULE_DAYS[day]),
      dtstart: new Date(from * DAY_MS + (clock.hour * 60 + clock.minute) * 60_000),
      until: new Date((until + 1) * DAY_MS - 1),
    });
    for (const date of rule.all((_date, count) => count < limit)) {
      const day = Math.floor(date.getTime() / DAY_MS);
      if (!series.days.includes(weekdayOf(day))) continue;
      if (context.excluded.has(day)) continue;
      occurrences.push({
        key: itemKey(base, day, series.time),
        type: series.type,
        title: series.title,
        day,
        endDay: null,
        time: series.time,
        location: series.location,
        description: series.description,
        topic: null,
        namedTitle: null,
        weekRow: false,
        series: index,
      });
    }
  });
  return { occurrences, unbounded };
}

function primaryClassSeries(context: Context): number[] {
  const indices = context.series.map((series, index) => ({ series, index })).filter(({ series }) => series.type === "CLASS");
  const rank = (title: string) => {
    const position = CLASS_PREFERENCE.indexOf(title);
    return position < 0 ? CLASS_PREFERENCE.length : position;
  };
  return indices.sort((a, b) => rank(a.series.title) - rank(b.series.title) || a.index - b.index).map(({ index }) => index);
}

function overlaps(first: ClockSpan, second: ClockSpan): boolean {
  const minutes = (time: TimeOfDay) => time.hour * 60 + time.minute;
  const firstEnd = first.end ? minutes(first.end) : minutes(first.start) + 60;
  const secondEnd = second.end ? minutes(second.end) : minutes(second.start) + 60;
  return minutes(first.start) < secondEnd && minutes(second.start) < firstEnd;
}

/** Schedule-row topics go into that day's class meeting; an exam in class takes the meeting's slot. */
function merge(context: Context, occurrences: Candidate[]): Candidate[] {
  const preferred = primaryClassSeries(context);
  const removed = new Set<Candidate>();
  const byDay = new Map<number, Candidate[]>();
  for (const occurrence of occurrences) {
    const list = byDay.get(occurrence.day) ?? [];
    list.push(occurrence);
    byDay.set(occurrence.day, list);
  }
  const classOn = (day: number, seriesTitle: string | null) => {
    const list = byDay.get(day) ?? [];
    for (const index of preferred) {
      const found = list.find((occurrence) => occurrence.series === index && !removed.has(occurrence));
      if (found && (seriesTitle === null || context.series[index].title === seriesTitle)) return found;
    }
    return undefined;
  };
  const kept: Candidate[] = [];
  for (const candidate of context.candidates) {
    if (candidate.type === "CLASS" && candidate.topic !== null && candidate.time === null) {
      const ownKind = candidate.namedTitle !== null ? classKind(candidate.namedTitle) : null;
      const lastDay = candidate.endDay ?? (candidate.weekRow ? candidate.day + 6 : candidate.day);
      // "Lab 3: Titration" goes to that day's lab; any other topic to the day's lecture (the preferred series).
      const find = (kind: string | null) => {
        for (let day = candidate.day; day <= lastDay; day++) {
          const meeting = classOn(day, kind);
          if (meeting && meeting.topic === null) return meeting;
        }
        return undefined;
      };
      const ownTarget = ownKind !== null ? find(ownKind) : undefined;
      const target = ownTarget ?? find(null);
      if (target) {
        target.topic = candidate.topic;
        target.location = candidate.location ?? target.location;
        target.title = ownTarget && candidate.namedTitle !== null ? candidate.namedTitle : `${target.title}: ${candidate.topic}`;
        continue;
      }
      if (preferred.length > 0 && candidate.namedTitle === null) {
        candidate.title = `${context.series[preferred[0]].title}: ${candidate.topic}`;
      }
    }
    if (candidate.type === "EXAM") {
      const quiz = /^quiz/i.test(candidate.title);
      const sameDay = (byDay.get(candidate.day) ?? []).filter(
        (occurrence) => occurrence.type === "CLASS" && !removed.has(occurrence) && preferred.includes(occurrence.series),
      );
      if (candidate.time === null && candidate.endDay === null) {
        const slot = classOn(candidate.day, null);
        if (slot?.time) {
          candidate.time = slot.time;
          candidate.location ??= slot.location;
          if (!quiz) removed.add(slot);
        }
      } else if (candidate.time !== null && !quiz) {
        for (const occurrence of sameDay) {
          if (occurrence.time && overlaps(occurrence.time, candidate.time)) removed.add(occurrence);
        }
      }
    }
    kept.push(candidate);
  }
  return [...kept, ...occurrences.filter((occurrence) => !removed.has(occurrence))];
}

function toItem(candidate: Candidate, timeZone: string): SyllabusItem {
  const title = cleanPhrase(candidate.title, 255) || titleFor(candidate.type, "");
  if (candidate.time === null) {
    return {
      key: candidate.key,
      title,
      type: candidate.type,
      startTime: utcMidnight(candidate.day),
      endTime: candidate.endDay !== null ? utcMidnight(candidate.endDay + 1) : null,
      allDay: true,
      location: candidate.location,
      description: candidate.description,
      localDate: isoDate(candidate.day),
    };
  }
  const start = zonedInstant(candidate.day, candidate.time.start.hour, candidate.time.start.minute, timeZone);
  let endTime: Date | null = null;
  if (candidate.time.end) {
    const endDay = candidate.endDay ?? candidate.day;
    endTime = zonedInstant(endDay, candidate.time.end.hour, candidate.time.end.minute, timeZone);
    // "10pm-1am" ends the next day.
    if (endTime.getTime() <= start.getTime()) {
      endTime = zonedInstant(endDay + 1, candidate.time.end.hour, candidate.time.end.minute, timeZone);
    }
  }
  return {
    key: candidate.key,
    title,
    type: candidate.type,
    startTime: start,
    endTime,
    allDay: false,
    location: candidate.location,
    description: candidate.description,
    localDate: isoDate(candidate.day),
  };
}

/** The same exam or deadline announced twice (a table and a sentence): the more precise one stays. */
function deduplicate(items: SyllabusItem[]): SyllabusItem[] {
  const byKey = new Map<string, SyllabusItem>();
  for (const item of items) if (!byKey.has(item.key)) byKey.set(item.key, item);
  const best = new Map<string, SyllabusItem>();
  const rank = (item: SyllabusItem) => (item.allDay ? 0 : 2) + (item.location ? 1 : 0);
  const result: SyllabusItem[] = [];
  for (const item of byKey.values()) {
    if (item.type !== "EXAM" && item.type !== "DEADLINE") {
      result.push(item);
      continue;
    }
    const group = `${item.type}\n${item.localDate}\n${item.title.toLowerCase()}`;
    const current = best.get(group);
    if (!current || rank(item) > rank(current) || (rank(item) === rank(current) && item.key < current.key)) best.set(group, item);
  }
  return [...result, ...best.values()];
}

/**
 * Reads a syllabus's extracted text into calendar items: dated lines (chrono-node), classified into CLASS, EXAM,
 * DEADLINE and MEETING, recurring patterns expanded (rrule), in the syllabus's time zone. Pure: no I/O, never
 * throws on any text (junk gives no items); throws a RangeError only for an unknown time zone.
 */
export function parseSyllabus(text: string, options: ParseSyllabusOptions): ParsedSyllabus {
  if (!isTimeZone(options.timeZone)) throw new RangeError(`unknown time zone: ${options.timeZone}`);
  const maxItems = Math.max(0, Math.floor(options.maxItems ?? DEFAULT_MAX_ITEMS));
  const referenceDay = calendarDate(localDay(options.referenceDate, options.timeZone));
  const { units, overLong } = buildUnits(text, Math.max(0, Math.floor(options.maxLines ?? DEFAULT_MAX_LINES)));

  const cache = new Map<string, RawMention[]>();
  const explicit: CalendarDate[] = [];
  for (const unit of units) {
    for (const cell of unit.cells) {
      const raw = rawMentions(cell.text, options.referenceDate);
      cache.set(cell.text, raw);
      for (const mention of raw) if (mention.start.year !== null) explicit.push({ ...mention.start, year: mention.start.year });
    }
  }
  const term = inferTerm(
    units.map((unit) => unit.text).join("\n"),
    explicit.filter((date) => date.year >= 1970 && date.year <= 9999),
    referenceDay,
  );
  const context: Context = {
    window: term.window,
    reference: options.referenceDate,
    cache,
    candidates: [],
    series: [],
    excluded: new Set(),
    termStart: null,
    termEnd: null,
    rowDays: [],
    header: null,
    headingKind: null,
  };

  let skipped = overLong;
  for (const unit of units) {
    let produced: boolean;
    try {
      produced = unit.cells.length >= 2 ? readTableRow(context, unit) : readClause(context, unit.text, unit.text);
    } catch {
      // A line the parser cannot read is skipped; it never fails the whole syllabus.
      produced = false;
    }
    const dated = unit.cells.some((cell) => (cache.get(cell.text) ?? []).length > 0);
    if (!produced && dated) skipped++;
    if (!produced && !dated && unit.cells.length === 1 && unit.text.length <= 60 && unit.text.split(/\s+/).length <= 6) {
      // A short undated line is a heading: "Office Hours" tells what the lines under it are.
      context.headingKind = classify(unit.text);
    }
  }

  const { occurrences, unbounded } = expandSeries(context, maxItems + 1);
  skipped += unbounded;
  const items = deduplicate(merge(context, occurrences).map((candidate) => toItem(candidate, options.timeZone)));
  items.sort((a, b) => a.startTime.getTime() - b.startTime.getTime() || a.key.localeCompare(b.key));
  const firstDay = context.candidates.length > 0 ? Math.min(...context.candidates.map((candidate) => candidate.day)) : null;
  const termYear = term.termYear ?? (firstDay !== null ? calendarDate(firstDay).year : referenceDay.year);
  return { items: items.slice(0, maxItems), termYear, skippedLines: skipped };
}
