import { indexing } from "@study/contracts";
import { SEARCHABLE_TYPE_CALENDAR_EVENT, toSearchable } from "../../src/application/searchable";
import type { CalendarEvent } from "../../src/domain/calendar-event";

const createdAt = new Date("2026-05-01T08:00:00Z");
const updatedAt = new Date("2026-05-02T09:30:00Z");
const full: CalendarEvent = {
  id: "0196a000-0000-7000-8000-000000000001",
  userId: "alice",
  title: "Biology midterm",
  description: "Chapters 1-4",
  startDate: new Date("2026-06-01T09:00:00Z"),
  endDate: new Date("2026-06-01T11:00:00Z"),
  eventType: "EXAM",
  location: "Hall B",
  priority: "HIGH",
  color: "#22AA88",
  courseId: "0196a000-0000-7000-8000-0000000000c1",
  googleEventId: null,
  googleCalendarId: null,
  reminderMinutes: 30,
  allDayDate: null,
  createdAt,
  updatedAt,
};

describe("a calendar event as search indexes it", () => {
  it("is of the contract's CALENDAR_EVENT type", () => {
    expect(SEARCHABLE_TYPE_CALENDAR_EVENT).toBe(indexing.SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT);
  });

  it("has the title, location and type as keywords, the description as content, the facts as metadata", () => {
    expect(toSearchable(full)).toEqual({
      type: indexing.SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
      id: full.id,
      userId: "alice",
      courseId: full.courseId,
      title: "Biology midterm",
      keywords: ["Hall B", "EXAM"],
      description: "",
      content: "Chapters 1-4",
      metadata: {
        startDate: "2026-06-01T09:00:00.000Z",
        endDate: "2026-06-01T11:00:00.000Z",
        eventType: "EXAM",
        priority: "HIGH",
        location: "Hall B",
      },
      createdAt,
      updatedAt,
    });
  });

  it("leaves out what the event does not have", () => {
    const bare: CalendarEvent = { ...full, description: null, endDate: null, location: null, courseId: null };
    expect(toSearchable(bare)).toMatchObject({ courseId: undefined, keywords: ["EXAM"], content: "" });
    expect(toSearchable(bare).metadata).toEqual({ startDate: "2026-06-01T09:00:00.000Z", eventType: "EXAM", priority: "HIGH" });
  });

  it("survives the wire unchanged", () => {
    const searchable = toSearchable(full);
    expect(indexing.Searchable.decode(indexing.Searchable.encode(searchable).finish())).toEqual(searchable);
  });
});
