import { calendar as api } from "@study/contracts";
import { clearFieldsFromProto, eventTypeFromProto, priorityFromProto, toProtoEvent } from "../../src/adapters/grpc/calendar-grpc-service";
import type { CalendarEvent } from "../../src/domain/calendar-event";

const at = new Date("2026-05-01T08:00:00Z");
const bare: CalendarEvent = {
  id: "0196a000-0000-7000-8000-000000000001",
  userId: "alice",
  title: "Office hours",
  description: null,
  startDate: at,
  endDate: null,
  eventType: "STUDY_SESSION",
  location: null,
  priority: "MEDIUM",
  color: "teal",
  courseId: null,
  googleEventId: null,
  googleCalendarId: null,
  reminderMinutes: 30,
  allDayDate: null,
  createdAt: at,
  updatedAt: at,
};

describe("gRPC mapping of calendar events", () => {
  it("sends the enums by name and leaves unset optional fields absent", () => {
    expect(toProtoEvent(bare)).toEqual({
      id: bare.id,
      userId: "alice",
      title: "Office hours",
      startDate: at,
      eventType: api.EventType.EVENT_TYPE_STUDY_SESSION,
      priority: api.EventPriority.EVENT_PRIORITY_MEDIUM,
      color: "teal",
      reminderMinutes: 30,
      createdAt: at,
      updatedAt: at,
    });
  });

  it("reads UNSPECIFIED as not given and refuses numbers outside the enums", () => {
    expect(eventTypeFromProto(api.EventType.EVENT_TYPE_UNSPECIFIED)).toBeUndefined();
    expect(eventTypeFromProto(api.EventType.EVENT_TYPE_DEADLINE)).toBe("DEADLINE");
    expect(priorityFromProto(api.EventPriority.EVENT_PRIORITY_HIGH)).toBe("HIGH");
    expect(() => eventTypeFromProto(api.EventType.UNRECOGNIZED)).toThrow("Invalid event type");
    expect(() => priorityFromProto(9 as api.EventPriority)).toThrow("Invalid priority");
  });

  it("takes clear_fields in proto's or the domain's spelling", () => {
    expect(clearFieldsFromProto(["end_date", "course_id", "description", "location", "endDate"])).toEqual([
      "endDate",
      "courseId",
      "description",
      "location",
      "endDate",
    ]);
  });
});
