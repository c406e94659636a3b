import { randomUUID } from "node:crypto";
import type { CalendarEvent } from "../../src/domain/calendar-event";
import {
  GOOGLE_DEFAULT_COLOR,
  googleEventIdFor,
  guessEventType,
  importDefaults,
  importedFields,
  toGoogleEvent,
  UNTITLED,
  type GoogleEvent,
} from "../../src/domain/google-event";

const at = (iso: string) => new Date(iso);
const google = (overrides: Partial<GoogleEvent> = {}): GoogleEvent => ({
  id: "abc123",
  status: "confirmed",
  summary: "Team meeting",
  start: { dateTime: at("2026-12-01T10:00:00Z") },
  end: { dateTime: at("2026-12-01T11:00:00Z") },
  ...overrides,
});

const studyEvent = (overrides: Partial<CalendarEvent> = {}): CalendarEvent => ({
  id: randomUUID(),
  userId: "user-1",
  title: "Organic chemistry lecture",
  description: "Chapter 4",
  startDate: at("2026-12-02T09:00:00Z"),
  endDate: at("2026-12-02T10:30:00Z"),
  eventType: "CLASS",
  location: "Hall B",
  priority: "MEDIUM",
  color: "#3f51b5",
  courseId: null,
  googleEventId: null,
  googleCalendarId: null,
  reminderMinutes: 15,
  allDayDate: null,
  createdAt: at("2026-11-01T00:00:00Z"),
  updatedAt: at("2026-11-01T00:00:00Z"),
  ...overrides,
});

describe("a Google event brought into the study calendar", () => {
  it("keeps its title, text and instants (UTC)", () => {
    expect(importedFields(google({ description: " Agenda ", location: "Room 4" }))).toEqual({
      title: "Team meeting",
      description: "Agenda",
      location: "Room 4",
      startDate: at("2026-12-01T10:00:00Z"),
      endDate: at("2026-12-01T11:00:00Z"),
      allDayDate: null,
    });
  });

  it("keeps the date of an all-day event: midnight UTC, Google's exclusive end date, and the date itself", () => {
    const fields = importedFields(google({ start: { date: "2026-12-24" }, end: { date: "2026-12-26" } }));
    expect(fields).toMatchObject({ startDate: at("2026-12-24T00:00:00Z"), endDate: at("2026-12-26T00:00:00Z"), allDayDate: "2026-12-24" });
  });

  it("shortens what is longer than the study calendar's limits instead of refusing it, never inside a character", () => {
    const fields = importedFields(google({ summary: "🧬".repeat(300), description: "d".repeat(1500), location: "l".repeat(400) }));
    expect([...(fields?.title ?? "")]).toHaveLength(255);
    expect(fields?.title).toBe("🧬".repeat(255));
    expect(fields?.description).toHaveLength(1000);
    expect(fields?.location).toHaveLength(255);
  });

  it("names an untitled event as Google's apps do, and drops an end before or at the start", () => {
    const fields = importedFields(google({ summary: "  ", end: { dateTime: at("2026-12-01T09:00:00Z") } }));
    expect(fields).toMatchObject({ title: UNTITLED, endDate: null });
    expect(importedFields(google({ end: { dateTime: at("2026-12-01T10:00:00Z") } }))?.endDate).toBeNull();
  });

  it("is nothing when cancelled or without a usable start", () => {
    expect(importedFields(google({ status: "cancelled" }))).toBeNull();
    expect(importedFields(google({ start: undefined }))).toBeNull();
    expect(importedFields(google({ start: { date: "2026-02-30" } }))).toBeNull();
  });

  it("guesses its type from its title, then its description, else MEETING", () => {
    expect(guessEventType("Physics midterm", null)).toBe("EXAM");
    expect(guessEventType("Essay due", null)).toBe("DEADLINE");
    expect(guessEventType("CS101 Lecture", null)).toBe("CLASS");
    expect(guessEventType("Library", "study group for the exam")).toBe("EXAM");
    expect(guessEventType("Revision with Sam", null)).toBe("STUDY_SESSION");
    expect(guessEventType("Dentist", null)).toBe("MEETING");
  });

  it("starts with Google's colour, or the calendar's default, and Google's reminder when it set one", () => {
    const fields = importedFields(google())!;
    expect(importDefaults(google({ colorId: "11", reminderMinutes: 10 }), fields)).toEqual({
      eventType: "MEETING",
      color: "#d50000",
      reminderMinutes: 10,
    });
    expect(importDefaults(google({ colorId: "99" }), fields)).toEqual({ eventType: "MEETING", color: GOOGLE_DEFAULT_COLOR, reminderMinutes: null });
  });
});

describe("a study event pushed to Google", () => {
  it("sends its fields, a fixed Google id made from its id, and its reminder", () => {
    const event = studyEvent();
    expect(toGoogleEvent(event)).toEqual({
      id: event.id.replace(/-/g, ""),
      summary: "Organic chemistry lecture",
      description: "Chapter 4",
      location: "Hall B",
      start: { dateTime: event.startDate },
      end: { dateTime: event.endDate },
      colorId: "9",
      reminderMinutes: 15,
      studyEventId: event.id,
    });
  });

  it("makes Google ids in Google's alphabet (base32hex, 5-1024 characters)", () => {
    const id = googleEventIdFor(randomUUID().toUpperCase());
    expect(id).toMatch(/^[0-9a-v]{5,1024}$/);
  });

  it("ends when it starts without an end, sends no colour that is not Google's, and keeps an all-day date", () => {
    expect(toGoogleEvent(studyEvent({ endDate: null, color: "tomato" }))).toMatchObject({
      end: { dateTime: at("2026-12-02T09:00:00Z") },
      colorId: null,
    });
    const allDay = studyEvent({ allDayDate: "2026-12-24", startDate: at("2026-12-24T00:00:00Z"), endDate: null });
    expect(toGoogleEvent(allDay)).toMatchObject({ start: { date: "2026-12-24" }, end: { date: "2026-12-25" } });
    const twoDays = studyEvent({ allDayDate: "2026-12-24", startDate: at("2026-12-24T00:00:00Z"), endDate: at("2026-12-26T00:00:00Z") });
    expect(toGoogleEvent(twoDays)).toMatchObject({ end: { date: "2026-12-26" } });
  });
});
