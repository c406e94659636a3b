import { todayIn } from "../../src/routes/dashboard";

/** "Today" of the dashboard: the calendar day in the caller's zone, as UTC instants [start, next start). */
describe("todayIn", () => {
  it("is the zone's day, not UTC's: Auckland is already a day ahead", () => {
    // 2026-11-24 20:00 UTC is 2026-11-25 09:00 in Auckland (NZDT, UTC+13).
    const today = todayIn("Pacific/Auckland", new Date("2026-11-24T20:00:00Z"));
    expect(today).toEqual({ start: new Date("2026-11-24T11:00:00Z"), end: new Date("2026-11-25T11:00:00Z") });
    expect(todayIn("UTC", new Date("2026-11-24T20:00:00Z"))).toEqual({
      start: new Date("2026-11-24T00:00:00Z"),
      end: new Date("2026-11-25T00:00:00Z"),
    });
  });

  it("follows daylight saving changes: a 23-hour and a 25-hour day", () => {
    // New York springs forward on 2026-03-08 and falls back on 2026-11-01.
    expect(todayIn("America/New_York", new Date("2026-03-08T15:00:00Z"))).toEqual({
      start: new Date("2026-03-08T05:00:00Z"),
      end: new Date("2026-03-09T04:00:00Z"),
    });
    expect(todayIn("America/New_York", new Date("2026-11-01T15:00:00Z"))).toEqual({
      start: new Date("2026-11-01T04:00:00Z"),
      end: new Date("2026-11-02T05:00:00Z"),
    });
  });

  it("takes the last day of a month over to the next month", () => {
    expect(todayIn("Asia/Kolkata", new Date("2026-12-31T20:00:00Z"))).toEqual({
      start: new Date("2026-12-31T18:30:00Z"),
      end: new Date("2027-01-01T18:30:00Z"),
    });
  });
});
