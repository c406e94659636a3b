import { randomUUID } from "node:crypto";
import { calendar as api } from "@study/contracts";
import { envelopeFromJson, type EventEnvelope } from "@study/events";
import { createClient } from "@study/grpc";
import type { AppError } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import {
  captureEvents,
  createTestDatabase,
  eventually,
  startFakeCourses,
  startFakeIdentity,
  testRabbitMqUrl,
  uniqueSuffix,
  type EventCapture,
} from "@study/testkit";
import { Client } from "pg";
import { calendarService } from "../../src/service";
import { calendarTestEnv } from "./calendar-env";

const { EventType } = api;
const CREATED = "calendar.event.created.v1";

describe("CreateEventsFromSource over gRPC, with PostgreSQL and RabbitMQ", () => {
  const foreignCourse = randomUUID();
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.CalendarServiceClient>>;
  let courses: Awaited<ReturnType<typeof startFakeCourses>>;
  // No Google account linked: nothing is pushed to Google.
  let identity: Awaited<ReturnType<typeof startFakeIdentity>>;
  let capture: EventCapture;
  let db: Client;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase("calendar", migrationSources(calendarService));
    const exchange = `test.${uniqueSuffix()}`;
    capture = await captureEvents(testRabbitMqUrl(), exchange, "calendar.#");
    courses = await startFakeCourses(new Set([foreignCourse]));
    identity = await startFakeIdentity();
    service = await startService(calendarService, {
      handleSignals: false,
      env: calendarTestEnv(databaseUrl, { courses, identity }, { EVENT_EXCHANGE: exchange }),
    });
    // The concurrency test holds calls on a lock until each waits: under load that takes longer than the default 5 s.
    client = createClient(api.CalendarServiceClient, api.CalendarServiceService, `127.0.0.1:${service.grpcPort}`, { deadlineMs: 30_000 });
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    client.close();
    await db.end();
    await service.lifecycle.stop();
    await courses.close();
    await identity.close();
    await capture.close();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code, details: error.details }),
    );

  const item = (sourceKey: string, fields: Partial<api.SourceEventItem> = {}): api.SourceEventItem => ({
    sourceKey,
    title: `Lecture ${sourceKey}`,
    startDate: new Date("2026-09-02T10:00:00Z"),
    endDate: new Date("2026-09-02T11:15:00Z"),
    eventType: EventType.EVENT_TYPE_CLASS,
    ...fields,
  });
  const keys = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}:${String(index).padStart(3, "0")}`);

  /** The user's events, every page. */
  const eventsOf = async (userId: string) => (await client.listEvents({ userId, eventType: 0, page: { limit: 100, offset: 0 } })).events;

  /** The ids of the user's events announced as created in the outbox (what the relay publishes). */
  const createdInOutbox = async (userId: string): Promise<string[]> => {
    const { rows } = await db.query<{ payload: unknown }>("SELECT payload FROM outbox_message WHERE type = $1 ORDER BY id", [CREATED]);
    return rows
      .map((row) => envelopeFromJson(row.payload))
      .filter((envelope) => envelope.userId === userId)
      .map((envelope) => (envelope.payload?.$case === "calendarEventCreated" ? envelope.payload.value.eventId : "?"));
  };

  /** The ids of the user's events published as created, once `count` arrived. */
  const published = (userId: string, count: number) =>
    eventually(async () => {
      const found = capture.events.filter((envelope: EventEnvelope) => envelope.type === CREATED && envelope.userId === userId);
      return found.length >= count
        ? found.map((envelope) => (envelope.payload?.$case === "calendarEventCreated" ? envelope.payload.value.eventId : "?"))
        : undefined;
    }, 10_000);

  it("creates each new item once, counts the existing ones, and announces only the events it created", async () => {
    const userId = `student-${uniqueSuffix()}`;
    const courseId = randomUUID();
    const items = [
      item(`syllabus:${courseId}:lecture-1`, { title: "Lecture 1", location: "Room 101" }),
      item(`syllabus:${courseId}:midterm`, { title: "Midterm", eventType: EventType.EVENT_TYPE_EXAM, description: "Chapters 1-4" }),
      item(`syllabus:${courseId}:essay`, {
        title: "Essay due",
        eventType: EventType.EVENT_TYPE_DEADLINE,
        startDate: undefined,
        endDate: undefined,
        allDayDate: "2026-10-15",
      }),
    ];
    expect(await client.createEventsFromSource({ userId, courseId, items })).toEqual({ created: 3, existing: 0 });
    const stored = await eventsOf(userId);
    expect(stored.map((event) => [event.title, event.eventType, event.courseId, event.color, event.reminderMinutes, event.allDayDate])).toEqual([
      ["Lecture 1", EventType.EVENT_TYPE_CLASS, courseId, "#3b82f6", 30, undefined],
      ["Midterm", EventType.EVENT_TYPE_EXAM, courseId, "#ef4444", 30, undefined],
      ["Essay due", EventType.EVENT_TYPE_DEADLINE, courseId, "#f59e0b", 30, "2026-10-15"],
    ]);
    expect(stored[2].startDate).toEqual(new Date("2026-10-15T00:00:00Z"));
    const ids = stored.map((event) => event.id);
    expect((await published(userId, 3)).sort()).toEqual([...ids].sort());

    // The same syllabus again: nothing new, nothing announced.
    expect(await client.createEventsFromSource({ userId, courseId, items })).toEqual({ created: 0, existing: 3 });
    expect((await eventsOf(userId)).map((event) => event.id)).toEqual(ids);
    expect((await createdInOutbox(userId)).sort()).toEqual([...ids].sort());

    // One more item: only it is created and announced.
    const final = item(`syllabus:${courseId}:final`, { title: "Final exam", eventType: EventType.EVENT_TYPE_EXAM });
    expect(await client.createEventsFromSource({ userId, courseId, items: [...items, final] })).toEqual({ created: 1, existing: 3 });
    const finalId = (await eventsOf(userId)).find((event) => event.title === "Final exam")?.id;
    expect((await createdInOutbox(userId)).sort()).toEqual([...ids, finalId].sort());
    expect((await published(userId, 4)).sort()).toEqual([...ids, finalId].sort());
  });

  /**
   * Makes the calls overlap for certain: a transaction of the test holds `heldKey` of the user (inserted, not
   * committed), every call waits on it (or on another call's rows), and once each call waits on a lock the hold is
   * rolled back and the calls go on.
   */
  async function overlapping<T>(userId: string, heldKey: string, calls: () => Promise<T>[]): Promise<T[]> {
    const holder = new Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(
        `INSERT INTO calendar_event (id, user_id, title, start_date, event_type, color, source_key, updated_at)
         VALUES ($1, $2, 'held by the test', now(), 'CLASS', '#000000', $3, now())`,
        [randomUUID(), userId, heldKey],
      );
      const running = calls();
      const settled = Promise.allSettled(running);
      await eventually(async () => {
        const { rows } = await db.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        return rows[0].waiting >= running.length;
      }, 20_000);
      await holder.query("ROLLBACK");
      return (await settled).map((result) => {
        if (result.status === "rejected") throw result.reason;
        return result.value;
      });
    } finally {
      await holder.end();
    }
  }

  it("creates every item once under two concurrent identical calls, and under calls with the keys in another order", async () => {
    const userId = `student-${uniqueSuffix()}`;
    const items = keys("syllabus:concurrent", 60).map((key) => item(key));
    const answers = await overlapping(userId, "syllabus:concurrent:030", () => [
      client.createEventsFromSource({ userId, items }),
      client.createEventsFromSource({ userId, items }),
    ]);
    expect(answers.map((answer) => answer.created + answer.existing)).toEqual([60, 60]);
    expect(answers[0].created + answers[1].created).toBe(60);
    expect(await eventsOf(userId)).toHaveLength(60);
    expect(await createdInOutbox(userId)).toHaveLength(60);

    // The same keys in opposite orders: the calls wait on each other rather than deadlock (the rows go in key order).
    const more = keys("syllabus:reversed", 40).map((key) => item(key));
    const crossed = await overlapping(userId, "syllabus:reversed:020", () => [
      client.createEventsFromSource({ userId, items: more }),
      client.createEventsFromSource({ userId, items: [...more].reverse() }),
    ]);
    expect(crossed[0].created + crossed[1].created).toBe(40);
    expect(await eventsOf(userId)).toHaveLength(100);
    expect(await createdInOutbox(userId)).toHaveLength(100);
  });

  it("refuses an invalid item naming its index and field, and another user's course as NOT_FOUND, storing nothing", async () => {
    const userId = `student-${uniqueSuffix()}`;
    expect(
      await refusal(
        client.createEventsFromSource({
          userId,
          items: [item("a"), item("b", { title: " ", endDate: new Date("2026-09-01T00:00:00Z") }), item("c", { location: "x".repeat(256) })],
        }),
      ),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "items[1].title", message: "must not be empty" },
        { field: "items[1].endDate", message: "must not be before startDate" },
        { field: "items[2].location", message: "must be at most 255 characters" },
      ],
    });
    expect(await refusal(client.createEventsFromSource({ userId, items: [item("a"), item("b", { eventType: 99 as api.EventType })] }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "items[1].eventType", message: "must be one of CLASS, DEADLINE, EXAM, MEETING, STUDY_SESSION" }],
    });
    expect(await refusal(client.createEventsFromSource({ userId, courseId: foreignCourse, items: [item("a")] }))).toMatchObject({
      kind: "not_found",
      code: "NOT_FOUND",
    });
    expect(await eventsOf(userId)).toEqual([]);
    expect(await createdInOutbox(userId)).toEqual([]);
  });

  it("answers CALENDAR_EVENT_CREATE_ERROR when the database fails, never the cause", async () => {
    const userId = `student-${uniqueSuffix()}`;
    await db.query("ALTER TABLE calendar_event RENAME TO calendar_event_away");
    try {
      expect(await refusal(client.createEventsFromSource({ userId, items: [item("a")] }))).toEqual({
        kind: "internal",
        code: "CALENDAR_EVENT_CREATE_ERROR",
        details: [],
      });
    } finally {
      await db.query("ALTER TABLE calendar_event_away RENAME TO calendar_event");
    }
  });
});
