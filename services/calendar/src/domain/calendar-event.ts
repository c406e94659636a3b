import { AppError, type FieldViolation } from "@study/platform/errors";
import { isCssColorName } from "./css-colors";

export const EVENT_TYPES = ["CLASS", "DEADLINE", "EXAM", "MEETING", "STUDY_SESSION"] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EVENT_PRIORITIES = ["LOW", "MEDIUM", "HIGH"] as const;
export type EventPriority = (typeof EVENT_PRIORITIES)[number];

/** A calendar event as the domain sees it. Instants are UTC; optional fields are null when not set. */
export interface CalendarEvent {
  id: string;
  userId: string;
  title: string;
  description: string | null;
  startDate: Date;
  endDate: Date | null;
  eventType: EventType;
  location: string | null;
  priority: EventPriority;
  color: string;
  courseId: string | null;
  googleEventId: string | null;
  googleCalendarId: string | null;
  reminderMinutes: number;
  /** YYYY-MM-DD of an all-day event (its startDate is that day's midnight UTC). */
  allDayDate: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What a client gives on create; null where it gave nothing (required ones are refused, defaulted ones defaulted). */
export interface EventInput {
  title: string;
  description: string | null;
  startDate: Date | null;
  endDate: Date | null;
  eventType: EventType | null;
  location: string | null;
  priority: EventPriority | null;
  color: string;
  courseId: string | null;
  reminderMinutes: number | null;
}

export const EVENT_LIMITS = { title: 255, description: 1000, location: 255 } as const;
export const DEFAULT_PRIORITY: EventPriority = "MEDIUM";
export const DEFAULT_REMINDER_MINUTES = 30;
/** Four weeks. */
export const MAX_REMINDER_MINUTES = 40_320;

/** The fields a PATCH may set to null. */
export const CLEARABLE_EVENT_FIELDS = ["description", "endDate", "location", "courseId"] as const;
export type ClearableEventField = (typeof CLEARABLE_EVENT_FIELDS)[number];

export interface EventChanges {
  /** Fields to set; undefined leaves a field unchanged. */
  set: Partial<{ [K in keyof EventInput]: NonNullable<EventInput[K]> }>;
  /** Optional fields to clear (names as sent; anything not clearable is refused). */
  clear: string[];
}

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
// Course ids are UUIDs (the domain may import only @study/platform/errors, hence not @study/platform/ids).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** #RGB, #RRGGBB (any case) or one of the CSS named colours (any case). */
export function isValidColor(color: string): boolean {
  return HEX_COLOR.test(color) || isCssColorName(color);
}

const clean = (value: string | null): string | null => {
  const trimmed = value?.trim() ?? "";
  return trimmed.length === 0 ? null : trimmed;
};
const isValidDate = (date: Date) => !Number.isNaN(date.getTime());
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Midnight UTC of a `YYYY-MM-DD` date (an all-day event's start), or null when it is not a date. */
export function midnightUtc(date: string): Date | null {
  if (!ISO_DATE.test(date)) return null;
  const instant = new Date(`${date}T00:00:00.000Z`);
  return Number.isNaN(instant.getTime()) || instant.toISOString().slice(0, 10) !== date ? null : instant;
}

type Attributes = Omit<CalendarEvent, "id" | "userId" | "googleEventId" | "googleCalendarId" | "allDayDate" | "createdAt" | "updatedAt">;

type Normalised = ReturnType<typeof normalise>;

/** Every rule an event's attributes break, one {field, message} each. */
function violationsOf(attributes: Normalised): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const { title, description, location, startDate, endDate, eventType, priority, color, courseId, reminderMinutes } = attributes;
  if (title.length === 0) violations.push({ field: "title", message: "must not be empty" });
  else if ([...title].length > EVENT_LIMITS.title) violations.push({ field: "title", message: `must be at most ${EVENT_LIMITS.title} characters` });
  if (description !== null && [...description].length > EVENT_LIMITS.description) {
    violations.push({ field: "description", message: `must be at most ${EVENT_LIMITS.description} characters` });
  }
  if (startDate === null) violations.push({ field: "startDate", message: "is required" });
  else if (!isValidDate(startDate)) violations.push({ field: "startDate", message: "must be a valid date" });
  if (endDate !== null && !isValidDate(endDate)) violations.push({ field: "endDate", message: "must be a valid date" });
  else if (endDate !== null && startDate !== null && isValidDate(startDate) && endDate.getTime() < startDate.getTime()) {
    violations.push({ field: "endDate", message: "must not be before startDate" });
  }
  if (eventType === null) violations.push({ field: "eventType", message: "is required" });
  else if (!EVENT_TYPES.includes(eventType)) violations.push({ field: "eventType", message: `must be one of ${EVENT_TYPES.join(", ")}` });
  if (location !== null && [...location].length > EVENT_LIMITS.location) {
    violations.push({ field: "location", message: `must be at most ${EVENT_LIMITS.location} characters` });
  }
  if (!EVENT_PRIORITIES.includes(priority)) violations.push({ field: "priority", message: `must be one of ${EVENT_PRIORITIES.join(", ")}` });
  if (color.length === 0) violations.push({ field: "color", message: "is required" });
  else if (!isValidColor(color)) violations.push({ field: "color", message: "must be a hex code (#RGB or #RRGGBB) or a CSS color name" });
  if (courseId !== null && !UUID.test(courseId)) violations.push({ field: "courseId", message: "must be a course id (UUID)" });
  if (!Number.isInteger(reminderMinutes) || reminderMinutes < 0 || reminderMinutes > MAX_REMINDER_MINUTES) {
    violations.push({ field: "reminderMinutes", message: `must be a whole number from 0 to ${MAX_REMINDER_MINUTES}` });
  }
  return violations;
}

/** Attributes without violations are an event's (violations: `violationsOf(attributes)`). */
const isValid = (attributes: Normalised, violations: FieldViolation[]): attributes is Attributes => violations.length === 0;

/** Checks every rule; each problem becomes one {field, message}. */
function validate(attributes: Normalised): asserts attributes is Attributes {
  const violations = violationsOf(attributes);
  if (!isValid(attributes, violations)) throw AppError.validation("Invalid calendar event", violations);
}

function normalise(input: EventInput) {
  return {
    title: input.title.trim(),
    description: clean(input.description),
    startDate: input.startDate,
    endDate: input.endDate,
    eventType: input.eventType,
    location: clean(input.location),
    priority: input.priority ?? DEFAULT_PRIORITY,
    color: input.color.trim(),
    courseId: clean(input.courseId),
    reminderMinutes: input.reminderMinutes ?? DEFAULT_REMINDER_MINUTES,
  };
}

export function createCalendarEvent(id: string, userId: string, input: EventInput, now: Date): CalendarEvent {
  const attributes = normalise(input);
  validate(attributes);
  return { id, userId, ...attributes, googleEventId: null, googleCalendarId: null, allDayDate: null, createdAt: now, updatedAt: now };
}

/** An item of an outside source (a syllabus) that becomes an event of the user once: the fields a source knows. */
export interface SourceItem {
  /** Unique per user for the source's item: the event is made once per key. */
  sourceKey: string;
  title: string;
  description: string | null;
  /** May be absent for an all-day item: its date's midnight UTC. */
  startDate: Date | null;
  endDate: Date | null;
  eventType: EventType | null;
  location: string | null;
  /** YYYY-MM-DD of an all-day item (its start is that day's midnight UTC, as for an all-day event imported from Google). */
  allDayDate: string | null;
}

/** A source item's event and its key. */
export interface SourcedEvent {
  sourceKey: string;
  event: CalendarEvent;
}

export const MAX_SOURCE_ITEMS = 1000;
export const SOURCE_KEY_MAX_LENGTH = 512;
/** A refusal names at most this many problems: it travels in a gRPC trailer, whose size is bounded. */
export const MAX_REPORTED_VIOLATIONS = 20;
/** A source gives no colour: each type gets its own, so that a syllabus's classes, exams and deadlines stand apart. */
export const SOURCE_EVENT_COLORS: Readonly<Record<EventType, string>> = {
  CLASS: "#3b82f6",
  DEADLINE: "#f59e0b",
  EXAM: "#ef4444",
  MEETING: "#10b981",
  STUDY_SESSION: "#8b5cf6",
};

/** The problems of a source item beyond the event rules (its key, its all-day date), and its start. */
function sourceItemChecks(item: SourceItem, index: number, firstIndexOfKey: Map<string, number>) {
  const violations: FieldViolation[] = [];
  if (item.sourceKey.trim().length === 0) violations.push({ field: "sourceKey", message: "must not be empty" });
  else if ([...item.sourceKey].length > SOURCE_KEY_MAX_LENGTH) {
    violations.push({ field: "sourceKey", message: `must be at most ${SOURCE_KEY_MAX_LENGTH} characters` });
  } else {
    const first = firstIndexOfKey.get(item.sourceKey);
    if (first === undefined) firstIndexOfKey.set(item.sourceKey, index);
    else violations.push({ field: "sourceKey", message: `must differ from items[${first}].sourceKey` });
  }
  const allDayDate = clean(item.allDayDate);
  let startDate = item.startDate;
  if (allDayDate !== null) {
    const midnight = midnightUtc(allDayDate);
    if (midnight === null) violations.push({ field: "allDayDate", message: "must be a date (YYYY-MM-DD)" });
    else if (startDate === null) startDate = midnight;
    else if (startDate.getTime() !== midnight.getTime()) {
      violations.push({ field: "startDate", message: `must be the midnight UTC of allDayDate (${midnight.toISOString()})` });
    }
  }
  return { violations, startDate, allDayDate };
}

/**
 * The events of a source's items for one user and course (null: none). Each item keeps CreateEvent's rules, with
 * the defaults of a created event (priority, reminder) and its type's colour; an all-day item starts at its date's
 * midnight UTC; keys are present and distinct. Every problem refuses the whole call, named `items[<index>].<field>`.
 * Returns the events with the course id as checked (trimmed; null when blank).
 */
export function createSourceEvents(
  userId: string,
  courseId: string | null,
  items: SourceItem[],
  newId: () => string,
  now: Date,
): { courseId: string | null; sourced: SourcedEvent[] } {
  if (items.length > MAX_SOURCE_ITEMS) {
    throw AppError.validation("Too many source items", [{ field: "items", message: `must be at most ${MAX_SOURCE_ITEMS} items` }]);
  }
  const violations: FieldViolation[] = [];
  const course = clean(courseId);
  if (course !== null && !UUID.test(course)) violations.push({ field: "courseId", message: "must be a course id (UUID)" });
  const firstIndexOfKey = new Map<string, number>();
  const sourced: SourcedEvent[] = [];
  items.forEach((item, index) => {
    const checks = sourceItemChecks(item, index, firstIndexOfKey);
    const { eventType } = item;
    // The course is the call's, checked once above.
    const attributes = normalise({
      ...item,
      startDate: checks.startDate,
      priority: null,
      color: eventType !== null && EVENT_TYPES.includes(eventType) ? SOURCE_EVENT_COLORS[eventType] : SOURCE_EVENT_COLORS.MEETING,
      courseId: null,
      reminderMinutes: null,
    });
    const itemViolations = [...checks.violations, ...violationsOf(attributes)];
    if (!isValid(attributes, itemViolations)) {
      violations.push(...itemViolations.map(({ field, message }) => ({ field: `items[${index}].${field}`, message })));
      return;
    }
    const event: CalendarEvent = {
      id: newId(),
      userId,
      ...attributes,
      courseId: course,
      googleEventId: null,
      googleCalendarId: null,
      allDayDate: checks.allDayDate,
      createdAt: now,
      updatedAt: now,
    };
    sourced.push({ sourceKey: item.sourceKey, event });
  });
  if (violations.length > 0) {
    throw AppError.validation(`Invalid source items (${violations.length} problems)`, violations.slice(0, MAX_REPORTED_VIOLATIONS));
  }
  return { courseId: course, sourced };
}

/** A PATCH: the given fields set, the named ones cleared, every rule checked on the result (endDate ≥ startDate too). */
export function applyEventChanges(event: CalendarEvent, changes: EventChanges, now: Date): CalendarEvent {
  const clearable = new Set<string>(CLEARABLE_EVENT_FIELDS);
  const invalid = changes.clear.filter((field) => !clearable.has(field));
  if (invalid.length > 0) {
    throw AppError.validation(
      "Invalid calendar event",
      invalid.map((field) => ({ field, message: field in event ? "is required and cannot be cleared" : "is not an event field" })),
    );
  }
  const current: EventInput = {
    title: event.title,
    description: event.description,
    startDate: event.startDate,
    endDate: event.endDate,
    eventType: event.eventType,
    location: event.location,
    priority: event.priority,
    color: event.color,
    courseId: event.courseId,
    reminderMinutes: event.reminderMinutes,
  };
  const given = Object.fromEntries(Object.entries(changes.set).filter(([, value]) => value !== undefined)) as Partial<EventInput>;
  const merged: EventInput = { ...current, ...given };
  for (const field of changes.clear as ClearableEventField[]) merged[field] = null;
  const attributes = normalise(merged);
  validate(attributes);
  // A moved event is no longer the all-day date it was imported as.
  const allDayDate = changes.set.startDate === undefined ? event.allDayDate : null;
  return { ...event, ...attributes, allDayDate, updatedAt: nextVersion(event.updatedAt, now) };
}

/** The event without its course (the course was deleted): otherwise unchanged, at a new version. */
export function detachFromCourse(event: CalendarEvent, now: Date): CalendarEvent {
  return { ...event, courseId: null, updatedAt: nextVersion(event.updatedAt, now) };
}

/**
 * A changed event's updatedAt: now, but always after the previous one (search keeps a record's newest version
 * by updatedAt, so a change within the same millisecond, or after the clock stepped back, must still be newer).
 */
export function nextVersion(previous: Date, now: Date): Date {
  return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
}
