import { createHash } from "node:crypto";
import { refusal } from "@study/testkit/refusal";
import { IcalFeedRenderer, ICAL_PRIORITY } from "../../src/adapters/ical/ical-feed-renderer";
import { FEED_CALENDAR_NAME, FEED_WINDOW, GetFeedToken, hashFeedToken, newFeedToken, RenderFeed, RotateFeedToken } from "../../src/application/feed";
import type { FeedCalendar, FeedEventSource, FeedRenderer, FeedTokenRepository } from "../../src/application/ports/feed.port";
import type { CalendarEvent } from "../../src/domain/calendar-event";

/** The token port over Maps, keeping only hashes as the lookup key, as the table does. */
class InMemoryFeedTokens implements FeedTokenRepository {
  readonly byUser = new Map<string, { token: string; tokenHash: string }>();

  async findOrCreate(userId: string, candidate: { token: string; tokenHash: string }): Promise<string> {
    const existing = this.byUser.get(userId);
    if (existing) return existing.token;
    this.byUser.set(userId, candidate);
    return candidate.token;
  }

  async replace(userId: string, next: { token: string; tokenHash: string }): Promise<void> {
    this.byUser.set(userId, next);
  }

  async findUserByHash(tokenHash: string): Promise<string | null> {
    for (const [userId, row] of this.byUser) if (row.tokenHash === tokenHash) return userId;
    return null;
  }
}

class RecordingEvents implements FeedEventSource {
  readonly asked: { userId: string; from: Date; to: Date }[] = [];
  constructor(private readonly events: CalendarEvent[]) {}
  async listOverlapping(userId: string, from: Date, to: Date): Promise<CalendarEvent[]> {
    this.asked.push({ userId, from, to });
    return this.events.filter((event) => event.userId === userId);
  }
}

class RecordingRenderer implements FeedRenderer {
  readonly rendered: FeedCalendar[] = [];
  render(calendar: FeedCalendar): string {
    this.rendered.push(calendar);
    return `ICS of ${calendar.events.map((event) => event.id).join(",")}`;
  }
}

const event = (fields: Partial<CalendarEvent> = {}): CalendarEvent => ({
  id: "0190f1c2-0000-7000-8000-000000000001",
  userId: "user-1",
  title: "Exam, part 1",
  description: "Bring; a pen",
  startDate: new Date("2026-12-01T09:00:00Z"),
  endDate: new Date("2026-12-01T11:00:00Z"),
  eventType: "EXAM",
  location: "Room 101",
  priority: "HIGH",
  color: "#ff0000",
  courseId: null,
  googleEventId: null,
  googleCalendarId: null,
  reminderMinutes: 30,
  allDayDate: null,
  createdAt: new Date("2026-11-01T00:00:00Z"),
  updatedAt: new Date("2026-11-02T00:00:00Z"),
  ...fields,
});

const notFound = { kind: "not_found", code: "NOT_FOUND" };

describe("feed tokens", () => {
  it("are 32 random bytes in base64url, hashed with sha256", () => {
    const token = newFeedToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(newFeedToken()).not.toBe(token);
    expect(hashFeedToken(token)).toBe(createHash("sha256").update(token).digest("hex"));
  });

  it("are made on the first GetFeedToken and the same afterwards, per user", async () => {
    const tokens = new InMemoryFeedTokens();
    const getToken = new GetFeedToken(tokens);
    const first = await getToken.execute("user-1");
    expect(await getToken.execute("user-1")).toBe(first);
    expect(await getToken.execute("user-2")).not.toBe(first);
    expect(tokens.byUser.get("user-1")?.tokenHash).toBe(hashFeedToken(first));
  });

  it("rotate to a new token; the old one finds nothing at once", async () => {
    const tokens = new InMemoryFeedTokens();
    const old = await new GetFeedToken(tokens).execute("user-1");
    const rotated = await new RotateFeedToken(tokens).execute("user-1");
    expect(rotated).not.toBe(old);
    expect(await new GetFeedToken(tokens).execute("user-1")).toBe(rotated);
    const render = new RenderFeed(tokens, new RecordingEvents([]), new RecordingRenderer());
    expect(await refusal(() => render.execute(old))).toMatchObject(notFound);
    await expect(render.execute(rotated)).resolves.toBe("ICS of ");
  });

  it("refuse a missing user id", async () => {
    expect(await refusal(() => new GetFeedToken(new InMemoryFeedTokens()).execute(""))).toMatchObject({ kind: "validation" });
    expect(await refusal(() => new RotateFeedToken(new InMemoryFeedTokens()).execute(""))).toMatchObject({ kind: "validation" });
  });
});

describe("RenderFeed", () => {
  it("renders the token owner's events from 90 days back to a year ahead", async () => {
    const tokens = new InMemoryFeedTokens();
    const token = await new GetFeedToken(tokens).execute("user-1");
    const events = new RecordingEvents([event(), event({ id: "other", userId: "user-2" })]);
    const renderer = new RecordingRenderer();
    const now = new Date("2026-11-24T12:00:00Z");
    expect(await new RenderFeed(tokens, events, renderer, () => now).execute(token)).toBe(`ICS of ${event().id}`);
    expect(events.asked).toEqual([{ userId: "user-1", from: new Date("2026-08-26T12:00:00Z"), to: new Date("2027-11-24T12:00:00Z") }]);
    expect(FEED_WINDOW).toEqual({ daysBack: 90, daysAhead: 365 });
    expect(renderer.rendered[0].name).toBe(FEED_CALENDAR_NAME);
  });

  it("answers NOT_FOUND for an unknown or empty token", async () => {
    const render = new RenderFeed(new InMemoryFeedTokens(), new RecordingEvents([]), new RecordingRenderer());
    expect(await refusal(() => render.execute(newFeedToken()))).toMatchObject(notFound);
    expect(await refusal(() => render.execute(""))).toMatchObject(notFound);
  });
});

describe("IcalFeedRenderer", () => {
  const lines = (ics: string) => ics.replace(/\r\n[ \t]/g, "").split("\r\n");

  it("writes each event with its UID, UTC instants, fields, priority, category and alarm", () => {
    const ics = lines(new IcalFeedRenderer().render({ name: FEED_CALENDAR_NAME, events: [event()] }));
    expect(ics).toEqual(
      expect.arrayContaining([
        "BEGIN:VCALENDAR",
        `X-WR-CALNAME:${FEED_CALENDAR_NAME}`,
        `UID:${event().id}@calendar.study-service`,
        "DTSTART:20261201T090000Z",
        "DTEND:20261201T110000Z",
        "SUMMARY:Exam\\, part 1",
        "DESCRIPTION:Bring\\; a pen",
        "LOCATION:Room 101",
        "CATEGORIES:EXAM",
        "PRIORITY:1",
        "LAST-MODIFIED:20261102T000000Z",
        "BEGIN:VALARM",
        "ACTION:DISPLAY",
        "TRIGGER:-PT30M",
      ]),
    );
  });

  it("maps priorities HIGH 1, MEDIUM 5, LOW 9", () => {
    expect(ICAL_PRIORITY).toEqual({ HIGH: 1, MEDIUM: 5, LOW: 9 });
  });

  it("writes all-day events as DATE values from allDayDate, and no alarm when reminderMinutes is 0", () => {
    const allDay = event({ allDayDate: "2026-12-05", startDate: new Date("2026-12-05T00:00:00Z"), endDate: null, reminderMinutes: 0 });
    const ics = lines(new IcalFeedRenderer().render({ name: FEED_CALENDAR_NAME, events: [allDay] }));
    expect(ics).toEqual(expect.arrayContaining(["DTSTART;VALUE=DATE:20261205", "DTEND;VALUE=DATE:20261206"]));
    expect(ics).not.toContain("BEGIN:VALARM");
  });

  it("ends a multi-day all-day event at its end date", () => {
    const allDay = event({ allDayDate: "2026-12-05", startDate: new Date("2026-12-05T00:00:00Z"), endDate: new Date("2026-12-08T00:00:00Z") });
    const ics = lines(new IcalFeedRenderer().render({ name: FEED_CALENDAR_NAME, events: [allDay] }));
    expect(ics).toEqual(expect.arrayContaining(["DTSTART;VALUE=DATE:20261205", "DTEND;VALUE=DATE:20261208"]));
  });
});
