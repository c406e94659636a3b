import { AppError } from "@study/platform";
import {
  applyEventChanges,
  createCalendarEvent,
  detachFromCourse,
  isValidColor,
  MAX_REMINDER_MINUTES,
  type EventInput,
} from "../../src/domain/calendar-event";
import { CSS_COLOR_NAMES } from "../../src/domain/css-colors";

const now = new Date("2026-01-01T00:00:00Z");
const start = new Date("2026-03-02T09:00:00Z");
const end = new Date("2026-03-02T10:30:00Z");
const COURSE = "0196a000-0000-7000-8000-0000000000c1";
const input: EventInput = {
  title: "Lecture",
  description: null,
  startDate: start,
  endDate: null,
  eventType: "CLASS",
  location: null,
  priority: null,
  color: "#3B82F6",
  courseId: null,
  reminderMinutes: null,
};

function violations(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("VALIDATION_ERROR");
    return (error as AppError).details;
  }
  throw new Error("expected a validation error");
}

const create = (changes: Partial<EventInput> = {}) => createCalendarEvent("id", "alice", { ...input, ...changes }, now);

describe("calendar event rules", () => {
  it("trims text, turns blank optional fields into null, defaults priority MEDIUM and the reminder to 30 minutes", () => {
    expect(create({ title: "  Lecture  ", description: "  ", location: " Room 4 " })).toEqual({
      id: "id",
      userId: "alice",
      title: "Lecture",
      description: null,
      startDate: start,
      endDate: null,
      eventType: "CLASS",
      location: "Room 4",
      priority: "MEDIUM",
      color: "#3B82F6",
      courseId: null,
      googleEventId: null,
      googleCalendarId: null,
      reminderMinutes: 30,
      allDayDate: null,
      createdAt: now,
      updatedAt: now,
    });
  });

  it("requires a title of 1-255 characters", () => {
    expect(violations(() => create({ title: "   " }))).toEqual([{ field: "title", message: "must not be empty" }]);
    expect(violations(() => create({ title: "x".repeat(256) }))).toEqual([{ field: "title", message: "must be at most 255 characters" }]);
    expect(create({ title: "x".repeat(255) }).title).toHaveLength(255);
  });

  it("limits the description to 1000 characters and the location to 255", () => {
    expect(create({ description: "d".repeat(1000), location: "l".repeat(255) })).toMatchObject({ description: "d".repeat(1000) });
    expect(violations(() => create({ description: "d".repeat(1001), location: "l".repeat(256) }))).toEqual([
      { field: "description", message: "must be at most 1000 characters" },
      { field: "location", message: "must be at most 255 characters" },
    ]);
  });

  it("accepts #RGB and #RRGGBB in any case and the 148 CSS named colours in any case, keeping the user's spelling", () => {
    expect(CSS_COLOR_NAMES.size).toBe(148);
    for (const color of ["#abc", "#ABC", "#a1B2c3", "RebeccaPurple", "teal", "LIGHTGOLDENRODYELLOW"]) {
      expect(create({ color }).color).toBe(color);
    }
    for (const color of ["#12", "#1234", "#12345678", "rgb(1,2,3)", "notacolour", "blue green", "transparent"]) {
      expect(isValidColor(color)).toBe(false);
    }
    expect(violations(() => create({ color: "#12" }))).toEqual([
      { field: "color", message: "must be a hex code (#RGB or #RRGGBB) or a CSS color name" },
    ]);
    expect(violations(() => create({ color: "  " }))).toEqual([{ field: "color", message: "is required" }]);
  });

  it("requires the start and the type", () => {
    expect(violations(() => create({ startDate: null, eventType: null }))).toEqual([
      { field: "startDate", message: "is required" },
      { field: "eventType", message: "is required" },
    ]);
    expect(violations(() => create({ startDate: new Date("nope") }))).toEqual([{ field: "startDate", message: "must be a valid date" }]);
  });

  it("refuses an end before the start, accepts an end equal to it", () => {
    expect(violations(() => create({ endDate: new Date(start.getTime() - 1) }))).toEqual([
      { field: "endDate", message: "must not be before startDate" },
    ]);
    expect(create({ endDate: start }).endDate).toEqual(start);
  });

  it("takes reminders from 0 to 40320 minutes (four weeks), whole numbers only", () => {
    expect(create({ reminderMinutes: 0 }).reminderMinutes).toBe(0);
    expect(create({ reminderMinutes: MAX_REMINDER_MINUTES }).reminderMinutes).toBe(40_320);
    for (const reminderMinutes of [-1, MAX_REMINDER_MINUTES + 1, 1.5]) {
      expect(violations(() => create({ reminderMinutes }))).toEqual([
        { field: "reminderMinutes", message: "must be a whole number from 0 to 40320" },
      ]);
    }
  });

  it("refuses a course id that is not a UUID", () => {
    expect(violations(() => create({ courseId: "biology" }))).toEqual([{ field: "courseId", message: "must be a course id (UUID)" }]);
    expect(create({ courseId: COURSE }).courseId).toBe(COURSE);
  });

  it("applies a partial change, clears the clearable fields, and keeps the rest", () => {
    const event = create({ description: "Bring notes", endDate: end, location: "Room 4", courseId: COURSE, priority: "HIGH" });
    const later = new Date("2026-02-01T00:00:00Z");
    const changed = applyEventChanges(event, { set: { title: "Lab" }, clear: ["description", "endDate", "location", "courseId"] }, later);
    expect(changed).toMatchObject({
      title: "Lab",
      description: null,
      endDate: null,
      location: null,
      courseId: null,
      priority: "HIGH",
      startDate: start,
      createdAt: now,
      updatedAt: later,
    });
  });

  it("checks endDate ≥ startDate after a change that moves only one of them", () => {
    const event = create({ endDate: end });
    const later = new Date("2026-02-01T00:00:00Z");
    expect(violations(() => applyEventChanges(event, { set: { startDate: new Date(end.getTime() + 60_000) }, clear: [] }, later))).toEqual([
      { field: "endDate", message: "must not be before startDate" },
    ]);
    expect(violations(() => applyEventChanges(event, { set: { endDate: new Date(start.getTime() - 60_000) }, clear: [] }, later))).toEqual([
      { field: "endDate", message: "must not be before startDate" },
    ]);
    // Moving the start past the end is fine when the same change clears the end.
    expect(applyEventChanges(event, { set: { startDate: new Date(end.getTime() + 60_000) }, clear: ["endDate"] }, later).endDate).toBeNull();
  });

  it("refuses to clear a required field or an unknown one", () => {
    const event = create();
    expect(violations(() => applyEventChanges(event, { set: {}, clear: ["title", "colour"] }, now))).toEqual([
      { field: "title", message: "is required and cannot be cleared" },
      { field: "colour", message: "is not an event field" },
    ]);
  });

  it("moves updatedAt past the previous version even within the same millisecond", () => {
    const event = create();
    expect(applyEventChanges(event, { set: { title: "Again" }, clear: [] }, now).updatedAt.getTime()).toBe(now.getTime() + 1);
    expect(detachFromCourse({ ...event, courseId: COURSE }, now)).toMatchObject({ courseId: null, updatedAt: new Date(now.getTime() + 1) });
  });

  it("forgets the all-day date of an event whose start moves", () => {
    const imported = { ...create(), allDayDate: "2026-03-02" };
    expect(applyEventChanges(imported, { set: { title: "Holiday" }, clear: [] }, now).allDayDate).toBe("2026-03-02");
    expect(applyEventChanges(imported, { set: { startDate: end }, clear: [] }, now).allDayDate).toBeNull();
  });
});
