import { failureOf } from "../../src/adapters/google/google-calendar-client";
import { fromGoogleEvent, toGoogleResource } from "../../src/adapters/google/google-event-mapping";
import type { GoogleEventWrite } from "../../src/application/ports/google-calendar.port";

/** The adapter's pure parts: Google's resources to the port's shapes and back, and the failure kinds. */

describe("fromGoogleEvent", () => {
  test("an item without an id is skipped; an unknown status is a live event", () => {
    expect(fromGoogleEvent({ status: "confirmed", summary: "no id" })).toBeNull();
    expect(fromGoogleEvent({ id: "abcde", status: "something-new" })).toEqual({ id: "abcde", status: "confirmed" });
  });

  test("an unreadable time is left out rather than made up", () => {
    expect(fromGoogleEvent({ id: "abcde", status: "confirmed", start: { dateTime: "not a time" }, end: {} })).toEqual({
      id: "abcde",
      status: "confirmed",
    });
  });

  test("the calendar's default reminders are not the event's; the first popup override is", () => {
    expect(fromGoogleEvent({ id: "abcde", reminders: { useDefault: true } })?.reminderMinutes).toBeUndefined();
    expect(
      fromGoogleEvent({ id: "abcde", reminders: { useDefault: false, overrides: [{ method: "email", minutes: 5 }] } })?.reminderMinutes,
    ).toBeUndefined();
    expect(
      fromGoogleEvent({
        id: "abcde",
        reminders: {
          useDefault: false,
          overrides: [
            { method: "popup", minutes: 0 },
            { method: "popup", minutes: 30 },
          ],
        },
      })?.reminderMinutes,
    ).toBe(0);
  });
});

describe("toGoogleResource", () => {
  const write: GoogleEventWrite = {
    id: "0123456789abcdef0123456789abcdef",
    summary: "Exam",
    description: null,
    location: null,
    start: { dateTime: new Date("2026-12-10T09:00:00.000Z") },
    end: { dateTime: new Date("2026-12-10T11:00:00.000Z") },
    colorId: null,
    reminderMinutes: 0,
    studyEventId: "01234567-89ab-cdef-0123-456789abcdef",
  };

  test("an insert names the id and leaves empty fields out; no reminder is an empty override list", () => {
    expect(toGoogleResource(write, "insert")).toEqual({
      id: write.id,
      summary: "Exam",
      start: { dateTime: "2026-12-10T09:00:00.000Z", timeZone: "UTC" },
      end: { dateTime: "2026-12-10T11:00:00.000Z", timeZone: "UTC" },
      reminders: { useDefault: false, overrides: [] },
      extendedProperties: { private: { studyEventId: write.studyEventId } },
    });
  });

  test("a patch clears empty fields with null and nulls the other kind of time", () => {
    expect(
      toGoogleResource({ ...write, start: { date: "2026-12-10" }, end: { date: "2026-12-11" }, reminderMinutes: 45, colorId: "11" }, "patch"),
    ).toEqual({
      summary: "Exam",
      description: null,
      location: null,
      colorId: "11",
      start: { date: "2026-12-10", dateTime: null, timeZone: null },
      end: { date: "2026-12-11", dateTime: null, timeZone: null },
      reminders: { useDefault: false, overrides: [{ method: "popup", minutes: 45 }] },
      extendedProperties: { private: { studyEventId: write.studyEventId } },
    });
  });
});

describe("failureOf", () => {
  test.each([
    ["list", 401, [], "auth"],
    ["insert", 403, ["insufficientPermissions"], "permission"],
    ["patch", 403, ["forbidden"], "permission"],
    ["list", 403, ["quotaExceeded"], "rate_limit"],
    ["delete", 403, ["dailyLimitExceeded"], "rate_limit"],
    ["list", 429, [], "rate_limit"],
    ["list", 410, ["fullSyncRequired"], "sync_token_expired"],
    ["patch", 410, ["deleted"], "gone"],
    ["delete", 404, ["notFound"], "gone"],
    ["list", 404, ["notFound"], "other"],
    ["insert", 404, ["notFound"], "other"],
    ["insert", 409, ["duplicate"], "duplicate"],
    ["patch", 409, ["conflict"], "other"],
    ["list", 400, ["invalid"], "other"],
    ["list", 503, [], "other"],
    ["list", undefined, [], "other"],
  ] as const)("%s answered %s %j → %s", (operation, status, reasons, failure) => {
    expect(failureOf(operation, { status, reasons: [...reasons] })).toBe(failure);
  });
});
