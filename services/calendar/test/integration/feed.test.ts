import { createHash } from "node:crypto";
import ical, { type VEvent } from "node-ical";
import { Client } from "pg";
import { calendar as api } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { AppError } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { createTestDatabase, startFakeCourses, startFakeIdentity, uniqueSuffix } from "@study/testkit";
import { calendarService } from "../../src/service";
import { calendarTestEnv } from "./calendar-env";

const { EventType, EventPriority } = api;
const DAY_MS = 24 * 60 * 60 * 1000;
/** An instant `days` from now on a whole second (iCalendar has no milliseconds). */
const daysFromNow = (days: number) => new Date(Math.floor((Date.now() + days * DAY_MS) / 1000) * 1000);
const wholeSecond = (date: Date | undefined) => (date ? new Date(Math.floor(date.getTime() / 1000) * 1000) : undefined);

describe("calendar feed over gRPC, with PostgreSQL", () => {
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.CalendarServiceClient>>;
  let courses: Awaited<ReturnType<typeof startFakeCourses>>;
  // No Google account linked: nothing is pushed to Google.
  let identity: Awaited<ReturnType<typeof startFakeIdentity>>;
  let db: Client;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("calendar", migrationSources(calendarService));
    courses = await startFakeCourses(new Set());
    identity = await startFakeIdentity();
    service = await startService(calendarService, {
      handleSignals: false,
      env: calendarTestEnv(databaseUrl, { courses, identity }),
    });
    client = createClient(api.CalendarServiceClient, api.CalendarServiceService, `127.0.0.1:${service.grpcPort}`);
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    client.close();
    await db.end();
    await service.lifecycle.stop();
    await courses.close();
    await identity?.close();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code }),
    );

  const create = async (userId: string, fields: Partial<api.CreateEventRequest>) => {
    const { event } = await client.createEvent({
      userId,
      title: "Lecture",
      startDate: daysFromNow(1),
      eventType: EventType.EVENT_TYPE_CLASS,
      priority: EventPriority.EVENT_PRIORITY_UNSPECIFIED,
      color: "#3b82f6",
      ...fields,
    });
    if (!event) throw new Error("CreateEvent answered no event");
    return event;
  };

  const feedEvents = async (token: string) => {
    const { ics } = await client.renderFeed({ token });
    const parsed = ical.sync.parseICS(ics);
    const events = new Map<string, VEvent>();
    for (const component of Object.values(parsed)) if (component.type === "VEVENT") events.set(component.uid, component);
    return { parsed, events };
  };
  const uid = (id: string) => `${id}@calendar.study-service`;

  it("makes one token per user on the first call (also for concurrent first calls), stored with its sha256", async () => {
    const userId = `feed-user-${uniqueSuffix()}`;
    const tokens = await Promise.all(Array.from({ length: 5 }, () => client.getFeedToken({ userId })));
    const [{ token }] = tokens;
    expect(new Set(tokens.map((answer) => answer.token))).toEqual(new Set([token]));
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await client.getFeedToken({ userId })).token).toBe(token);
    const { rows } = await db.query("SELECT token_hash FROM calendar_feed_token WHERE user_id = $1", [userId]);
    expect(rows).toEqual([{ token_hash: createHash("sha256").update(token).digest("hex") }]);
  });

  it("renders the user's events in the window with every field, all-day events as dates", async () => {
    const userId = `feed-user-${uniqueSuffix()}`;
    const { token } = await client.getFeedToken({ userId });
    const exam = await create(userId, {
      title: "Exam, part 1",
      description: "Bring; a pen",
      location: "Room 101",
      startDate: daysFromNow(5),
      endDate: daysFromNow(5.1),
      eventType: EventType.EVENT_TYPE_EXAM,
      priority: EventPriority.EVENT_PRIORITY_HIGH,
      reminderMinutes: 90,
    });
    const meeting = await create(userId, {
      title: "Meeting",
      startDate: daysFromNow(-80),
      eventType: EventType.EVENT_TYPE_MEETING,
      reminderMinutes: 0,
    });
    // Started before the window, still running inside it.
    const running = await create(userId, {
      title: "Project",
      startDate: daysFromNow(-120),
      endDate: daysFromNow(-60),
      priority: EventPriority.EVENT_PRIORITY_LOW,
    });
    const tooOld = await create(userId, { title: "Old", startDate: daysFromNow(-95), endDate: daysFromNow(-91) });
    const tooFar = await create(userId, { title: "Far", startDate: daysFromNow(370) });
    const someoneElses = await create(`other-${uniqueSuffix()}`, { title: "Not mine" });
    // All-day events come from Google sync (allDayDate is read-only through the API): stored as sync stores them.
    const allDay = await create(userId, { title: "Holiday", startDate: new Date("2026-12-24T00:00:00Z") });
    const day = daysFromNow(10).toISOString().slice(0, 10);
    await db.query("UPDATE calendar_event SET all_day_date = $2, start_date = $3, end_date = NULL WHERE id = $1", [
      allDay.id,
      day,
      `${day}T00:00:00Z`,
    ]);

    const { parsed, events } = await feedEvents(token);
    expect(Object.values(parsed).find((component) => component.type === "VCALENDAR")).toMatchObject({ "WR-CALNAME": "Study Service — Calendar" });
    expect([...events.keys()].sort()).toEqual([exam.id, meeting.id, running.id, allDay.id].map(uid).sort());
    for (const outside of [tooOld, tooFar, someoneElses]) expect(events.has(uid(outside.id))).toBe(false);

    const examEvent = events.get(uid(exam.id));
    expect(examEvent).toMatchObject({
      summary: "Exam, part 1",
      description: "Bring; a pen",
      location: "Room 101",
      categories: ["EXAM"],
      priority: "1",
      datetype: "date-time",
      start: exam.startDate,
      end: exam.endDate,
      lastmodified: wholeSecond(exam.updatedAt),
    });
    expect(examEvent?.alarms).toEqual([expect.objectContaining({ action: "DISPLAY", trigger: "-PT1H30M" })]);
    expect(events.get(uid(meeting.id))).toMatchObject({ categories: ["MEETING"], priority: "5" });
    expect(events.get(uid(meeting.id))?.alarms ?? []).toEqual([]);
    expect(events.get(uid(running.id))).toMatchObject({ priority: "9", categories: ["CLASS"] });
    const allDayEvent = events.get(uid(allDay.id));
    expect(allDayEvent).toMatchObject({ summary: "Holiday", datetype: "date" });
    expect(ics(await client.renderFeed({ token }))).toContain(`DTSTART;VALUE=DATE:${day.replaceAll("-", "")}`);
  });

  it("rotates: the old token is NOT_FOUND at once, the new one renders the same user's feed", async () => {
    const userId = `feed-user-${uniqueSuffix()}`;
    const { token: old } = await client.getFeedToken({ userId });
    const event = await create(userId, { title: "Seminar" });
    const { token: rotated } = await client.rotateFeedToken({ userId });
    expect(rotated).not.toBe(old);
    expect(await refusal(client.renderFeed({ token: old }))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
    expect((await client.getFeedToken({ userId })).token).toBe(rotated);
    expect((await feedEvents(rotated)).events.has(uid(event.id))).toBe(true);
  });

  it("answers NOT_FOUND for an unknown or empty token", async () => {
    expect(await refusal(client.renderFeed({ token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }))).toEqual({
      kind: "not_found",
      code: "NOT_FOUND",
    });
    expect(await refusal(client.renderFeed({ token: "" }))).toEqual({ kind: "not_found", code: "NOT_FOUND" });
  });
});

const ics = (answer: api.RenderFeedResponse) => answer.ics.replace(/\r\n[ \t]/g, "");
