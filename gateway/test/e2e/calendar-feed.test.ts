import ical, { type VEvent } from "node-ical";
import { httpClient, sharedTestStack, signUpUser, type SharedStack, type SignedUpUser } from "@study/testkit";

interface Feed {
  url: string;
  token: string;
}

interface CalendarEvent {
  id: string;
  startDate: string;
  endDate: string | null;
  updatedAt: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** An instant `days` from now, on a whole second (iCalendar has no milliseconds). */
const daysFromNow = (days: number) => new Date(Math.floor((Date.now() + days * DAY_MS) / 1000) * 1000).toISOString();
const wholeSecond = (iso: string) => new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toISOString();

/**
 * The subscribable iCalendar feed (issue #12): the signed-in user's feed URL, the public .ics (parsed back with
 * node-ical, every field, the 90-days-back/1-year-ahead window, one user's events only), rotation invalidating
 * the old URL, and which routes need a session.
 */
describe("calendar feed end to end", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let alice: SignedUpUser;
  let bob: SignedUpUser;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    alice = await signUpUser(api, { name: "Alice" });
    bob = await signUpUser(api, { name: "Bob" });
  });

  async function createEvent(token: string, body: Record<string, unknown>): Promise<CalendarEvent> {
    const created = await api("POST", "/api/calendar/events", { token, body });
    expect([created.status, created.body.code]).toEqual([201, undefined]);
    return created.body.data as CalendarEvent;
  }

  async function feedOf(token: string, method = "GET", path = "/api/calendar/feed"): Promise<Feed> {
    const response = await api(method, path, { token });
    expect([response.status, response.body.code]).toEqual([200, undefined]);
    return response.body.data as Feed;
  }

  /** The .ics behind a feed URL, fetched without a session, with its headers checked; its events by UID. */
  async function fetchFeed(feed: Feed): Promise<Map<string, VEvent>> {
    expect(feed.url.startsWith(stack.gatewayUrl)).toBe(true);
    const response = await api("GET", feed.url.slice(stack.gatewayUrl.length));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, max-age=300");
    expect(typeof response.body).toBe("string");
    const parsed = ical.sync.parseICS(String(response.body));
    const calendar = Object.values(parsed).find((component) => component.type === "VCALENDAR");
    expect(calendar).toMatchObject({ "WR-CALNAME": "Study Service — Calendar" });
    const events = new Map<string, VEvent>();
    for (const component of Object.values(parsed)) if (component.type === "VEVENT") events.set(component.uid, component);
    return events;
  }

  const uid = (event: CalendarEvent) => `${event.id}@calendar.study-service`;

  it("gives a stable feed URL whose .ics holds the user's events in the window, every field in place", async () => {
    const feed = await feedOf(alice.token);
    expect(feed.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(feed.url).toBe(`${stack.gatewayUrl}/api/calendar/feed/${feed.token}.ics`);
    expect(await feedOf(alice.token)).toEqual(feed);

    const exam = await createEvent(alice.token, {
      title: "Algebra exam, part 1",
      description: "Bring; a pen",
      location: "Room 101",
      startDate: daysFromNow(7),
      endDate: daysFromNow(7.1),
      eventType: "EXAM",
      priority: "HIGH",
      color: "red",
      reminderMinutes: 45,
    });
    const study = await createEvent(alice.token, {
      title: "Study group",
      startDate: daysFromNow(-30),
      eventType: "STUDY_SESSION",
      priority: "LOW",
      color: "#00ff00",
      reminderMinutes: 0,
    });
    const lecture = await createEvent(alice.token, { title: "Lecture", startDate: daysFromNow(300), eventType: "CLASS", color: "blue" });
    const tooOld = await createEvent(alice.token, {
      title: "Old",
      startDate: daysFromNow(-100),
      endDate: daysFromNow(-95),
      eventType: "MEETING",
      color: "blue",
    });
    const tooFar = await createEvent(alice.token, { title: "Far", startDate: daysFromNow(400), eventType: "DEADLINE", color: "blue" });
    const bobs = await createEvent(bob.token, { title: "Bob's", startDate: daysFromNow(3), eventType: "CLASS", color: "blue" });

    const events = await fetchFeed(feed);
    expect([...events.keys()].sort()).toEqual([uid(exam), uid(study), uid(lecture)].sort());
    for (const outside of [tooOld, tooFar, bobs]) expect(events.has(uid(outside))).toBe(false);

    const examEvent = events.get(uid(exam));
    expect(examEvent).toMatchObject({
      summary: "Algebra exam, part 1",
      description: "Bring; a pen",
      location: "Room 101",
      categories: ["EXAM"],
      priority: "1",
      datetype: "date-time",
    });
    expect([examEvent?.start.toISOString(), examEvent?.end.toISOString()]).toEqual([exam.startDate, exam.endDate]);
    expect(examEvent?.lastmodified?.toISOString()).toBe(wholeSecond(exam.updatedAt));
    expect(examEvent?.alarms).toEqual([expect.objectContaining({ action: "DISPLAY", trigger: "-PT45M" })]);
    expect(events.get(uid(study))).toMatchObject({ summary: "Study group", categories: ["STUDY_SESSION"], priority: "9" });
    expect(events.get(uid(study))?.alarms ?? []).toEqual([]);
    expect(events.get(uid(lecture))).toMatchObject({ categories: ["CLASS"], priority: "5" });
    expect(events.get(uid(lecture))?.alarms).toEqual([expect.objectContaining({ action: "DISPLAY", trigger: "-PT30M" })]);
  });

  it("keeps tokens per user: each feed shows its own user's events only", async () => {
    const aliceFeed = await feedOf(alice.token);
    const bobFeed = await feedOf(bob.token);
    expect(bobFeed.token).not.toBe(aliceFeed.token);
    const bobsOwn = await createEvent(bob.token, { title: "Bob's seminar", startDate: daysFromNow(2), eventType: "MEETING", color: "blue" });
    const bobEvents = await fetchFeed(bobFeed);
    expect(bobEvents.has(uid(bobsOwn))).toBe(true);
    for (const event of bobEvents.values()) expect(event.summary).toMatch(/^Bob's/);
    expect((await fetchFeed(aliceFeed)).has(uid(bobsOwn))).toBe(false);
  });

  it("rotates the token: the old URL answers 404 at once, the new one works and is the feed from now on", async () => {
    const old = await feedOf(alice.token);
    const rotated = await feedOf(alice.token, "POST", "/api/calendar/feed/rotate");
    expect(rotated.token).not.toBe(old.token);
    expect(rotated.url).toBe(`${stack.gatewayUrl}/api/calendar/feed/${rotated.token}.ics`);
    expect(await feedOf(alice.token)).toEqual(rotated);
    const gone = await api("GET", `/api/calendar/feed/${old.token}.ics`);
    expect([gone.status, gone.body]).toEqual([404, expect.objectContaining({ success: false, code: "NOT_FOUND" })]);
    expect((await fetchFeed(rotated)).size).toBeGreaterThan(0);
  });

  it("answers 404 in the envelope for an unknown token", async () => {
    const response = await api("GET", "/api/calendar/feed/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.ics");
    expect([response.status, response.body]).toEqual([
      404,
      expect.objectContaining({ success: false, code: "NOT_FOUND", error: expect.any(String) }),
    ]);
  });

  it("needs a session for the feed URL and rotation, not for the .ics", async () => {
    for (const [method, path] of [
      ["GET", "/api/calendar/feed"],
      ["POST", "/api/calendar/feed/rotate"],
    ]) {
      const response = await api(method, path);
      expect({ method, path, status: response.status, code: response.body.code }).toEqual({ method, path, status: 401, code: "UNAUTHORIZED" });
    }
  });
});
