import { calendar as api } from "@study/contracts";
import { createClient } from "@study/grpc";
import { AppError } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import {
  createTestDatabase,
  eventually,
  GOOGLE_ERRORS,
  startFakeCourses,
  startFakeIdentity,
  startGoogleCalendarServer,
  uniqueSuffix,
  type FakeIdentity,
  type LocalGoogleCalendar,
} from "@study/testkit";
import { Client } from "pg";
import { calendarService } from "../../src/service";
import { calendarTestEnv } from "./calendar-env";

const { EventType } = api;
const DAY_MS = 86_400_000;
const inDays = (days: number, hour = 10) => {
  const day = new Date(Date.now() + days * DAY_MS);
  day.setUTCHours(hour, 0, 0, 0);
  return day;
};

/**
 * The sync and the push with the real database, broker, adapter and a Calendar v3 stand-in: what the end-to-end
 * test cannot arrange (concurrent syncs, refusals of the push, an identity service that refuses).
 */
describe("Google Calendar sync and push in the calendar service", () => {
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.CalendarServiceClient>>;
  let courses: Awaited<ReturnType<typeof startFakeCourses>>;
  let identity: FakeIdentity;
  let google: LocalGoogleCalendar;
  let db: Client;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("calendar", migrationSources(calendarService));
    courses = await startFakeCourses(new Set());
    identity = await startFakeIdentity();
    google = await startGoogleCalendarServer();
    service = await startService(calendarService, {
      handleSignals: false,
      env: calendarTestEnv(databaseUrl, { courses, identity }, { GOOGLE_CALENDAR_API_URL: google.rootUrl }),
    });
    client = createClient(api.CalendarServiceClient, api.CalendarServiceService, `127.0.0.1:${service.grpcPort}`, { deadlineMs: 30_000 });
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    client?.close();
    await service?.lifecycle.stop();
    await db?.end();
    await google?.close();
    await identity?.close();
    await courses?.close();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code, action: error.action }),
    );

  /** A user with a linked Google account: their id and their account at the stand-in. */
  function linkedUser() {
    const userId = `user-${uniqueSuffix()}`;
    identity.link(userId, google.issueToken(userId));
    return userId;
  }

  const create = (userId: string, title: string) =>
    client.createEvent({ userId, title, startDate: inDays(2), eventType: EventType.EVENT_TYPE_MEETING, priority: 0, color: "#039be5" });

  const insertsOf = (userId: string) => google.requests.filter((request) => request.operation === "events.insert" && request.account === userId);

  it("imports each Google event once when two syncs of the user run at the same time", async () => {
    const userId = linkedUser();
    for (let day = 1; day <= 40; day++)
      google.addEvent(userId, { summary: `Event ${day}`, start: { dateTime: inDays(day) }, end: { dateTime: inDays(day, 11) } });
    const [first, second] = await Promise.all([client.syncGoogleCalendar({ userId }), client.syncGoogleCalendar({ userId })]);
    expect(first.imported + second.imported).toBe(40);
    const { rows } = await db.query(
      `SELECT count(*)::int AS events, count(DISTINCT google_event_id)::int AS copies FROM calendar_event WHERE user_id = $1`,
      [userId],
    );
    expect(rows[0]).toEqual({ events: 40, copies: 40 });
  });

  it("answers the identity service's refusal (RELINK) and NOT_LINKED for a user without Google", async () => {
    const userId = linkedUser();
    identity.refuse(
      userId,
      new AppError("precondition", "GOOGLE_CALENDAR_AUTH_ERROR", "Google refused the refresh", { action: "RELINK_GOOGLE_ACCOUNT" }),
    );
    expect(await refusal(client.syncGoogleCalendar({ userId }))).toEqual({
      kind: "precondition",
      code: "GOOGLE_CALENDAR_AUTH_ERROR",
      action: "RELINK_GOOGLE_ACCOUNT",
    });
    expect(await refusal(client.syncGoogleCalendar({ userId: `nobody-${uniqueSuffix()}` }))).toEqual({
      kind: "precondition",
      code: "GOOGLE_CALENDAR_NOT_LINKED",
      action: "LINK_GOOGLE_ACCOUNT",
    });
  });

  it("retries a push Google refused for now until it takes it, and makes one copy", async () => {
    const userId = linkedUser();
    google.failNext("events.insert", GOOGLE_ERRORS.tooManyRequests);
    const { event } = await create(userId, "Office hours");
    const copy = await eventually(async () => google.event(userId, event!.id.replace(/-/g, "")), 20_000);
    expect(copy).toMatchObject({ summary: "Office hours", status: "confirmed" });
    expect(insertsOf(userId).map((request) => request.status)).toEqual([429, 200]);
    await eventually(async () => ((await client.getEvent({ userId, eventId: event!.id })).event?.googleEventId === copy.id ? true : undefined));
  });

  it("drops a push Google refuses for good, keeping the local event; and pushes nothing for a user without Google", async () => {
    const userId = linkedUser();
    google.failNext("events.insert", GOOGLE_ERRORS.insufficientPermissions);
    const refused = (await create(userId, "Refused")).event!;
    await eventually(async () => (insertsOf(userId).length === 1 ? true : undefined));
    // The next change of the same user goes through: the refused one was not retried meanwhile.
    const accepted = (await create(userId, "Accepted")).event!;
    await eventually(async () => google.event(userId, accepted.id.replace(/-/g, "")));
    expect(insertsOf(userId).map((request) => request.status)).toEqual([403, 200]);
    expect((await client.getEvent({ userId, eventId: refused.id })).event).toMatchObject({ title: "Refused", googleEventId: undefined });

    const unlinked = `user-${uniqueSuffix()}`;
    await create(unlinked, "Local only");
    await eventually(async () => (identity.asked.includes(unlinked) ? true : undefined));
    expect(google.requests.filter((request) => request.account === unlinked)).toEqual([]);
  });

  it("pushes the events created from a source like any other, an all-day one as an all-day Google event", async () => {
    const userId = linkedUser();
    const day = inDays(5, 0).toISOString().slice(0, 10);
    const items = [
      { sourceKey: "syllabus:lab", title: "Lab 1", startDate: inDays(3), endDate: inDays(3, 12), eventType: EventType.EVENT_TYPE_CLASS },
      { sourceKey: "syllabus:essay", title: "Essay due", allDayDate: day, eventType: EventType.EVENT_TYPE_DEADLINE },
    ];
    expect(await client.createEventsFromSource({ userId, items })).toEqual({ created: 2, existing: 0 });
    const [lab, essay] = (await client.listEvents({ userId, eventType: 0 })).events;
    const labCopy = await eventually(async () => google.event(userId, lab.id.replace(/-/g, "")), 20_000);
    const essayCopy = await eventually(async () => google.event(userId, essay.id.replace(/-/g, "")), 20_000);
    expect(labCopy).toMatchObject({ summary: "Lab 1", start: { dateTime: expect.any(String) } });
    expect(new Date(String((labCopy.start as { dateTime: string }).dateTime))).toEqual(inDays(3));
    expect(essayCopy).toMatchObject({ summary: "Essay due", start: { date: day } });
    expect(insertsOf(userId).map((request) => request.status)).toEqual([200, 200]);
  });
});
