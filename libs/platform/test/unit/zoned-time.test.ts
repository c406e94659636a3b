import { isTimeZone, localDay, todayIn, zonedInstant } from "@study/platform/zoned-time";

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

  it("starts a day whose midnight the clocks skip at the first minute that exists: Santiago springs forward at 24:00", () => {
    // 2026-09-06 00:00 does not exist in Santiago (23:59:59 -04 is followed by 01:00 -03): the day starts at 01:00.
    expect(todayIn("America/Santiago", new Date("2026-09-06T15:00:00Z"))).toEqual({
      start: new Date("2026-09-06T04:00:00Z"),
      end: new Date("2026-09-07T03:00:00Z"),
    });
    expect(todayIn("America/Santiago", new Date("2026-09-05T15:00:00Z")).end).toEqual(new Date("2026-09-06T04:00:00Z"));
  });

  it("takes the last day of a month over to the next month", () => {
    expect(todayIn("Asia/Kolkata", new Date("2026-12-31T20:00:00Z"))).toEqual({
      start: new Date("2026-12-31T18:30:00Z"),
      end: new Date("2027-01-01T18:30:00Z"),
    });
  });
});

describe("zoned days", () => {
  it("knows IANA zone names and refuses others", () => {
    expect(["UTC", "Europe/Berlin", "Pacific/Auckland"].every(isTimeZone)).toBe(true);
    expect(["Mars/Olympus_Mons", "", "GMT+25"].some(isTimeZone)).toBe(false);
  });

  it("turns a wall-clock time into its instant, a time in the spring-forward gap landing after it", () => {
    const march8 = localDay(new Date("2026-03-08T12:00:00Z"), "America/New_York");
    expect(zonedInstant(march8, 9, 30, "America/New_York")).toEqual(new Date("2026-03-08T13:30:00Z"));
    // 02:30 does not exist that night in New York: 03:30 EDT, the first wall-clock time after the gap.
    expect(zonedInstant(march8, 2, 30, "America/New_York")).toEqual(new Date("2026-03-08T07:30:00Z"));
    expect(localDay(new Date("2026-03-08T04:59:00Z"), "America/New_York")).toBe(march8 - 1);
  });
});
