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

type Attributes = Omit<CalendarEvent, "id" | "userId" | "googleEventId" | "googleCalendarId" | "allDayDate" | "createdAt" | "updatedAt">;

/** Checks every rule; each problem becomes one {field, message}. */
function validate(attributes: {
  title: string;
  description: string | null;
  startDate: Date | null;
  endDate: Date | null;
  eventType: EventType | null;
  location: string | null;
  priority: EventPriority;
  color: string;
  courseId: string | null;
  reminderMinutes: number;
}): asserts attributes is Attributes {
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
  if (violations.length > 0) throw AppError.validation("Invalid calendar event", violations);
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
