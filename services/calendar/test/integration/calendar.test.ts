import { randomUUID } from "node:crypto";
import { calendar as api, indexing } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher, type EventEnvelope } from "@study/events";
import { createClient } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
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

const { EventType, EventPriority } = api;

describe("calendar service over gRPC, with PostgreSQL and RabbitMQ", () => {
  const foreignCourse = randomUUID();
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.CalendarServiceClient>>;
  let source: ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>;
  let courses: Awaited<ReturnType<typeof startFakeCourses>>;
  // No Google account linked: nothing is pushed to Google.
  let identity: Awaited<ReturnType<typeof startFakeIdentity>>;
  let capture: EventCapture;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;
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
    client = createClient(api.CalendarServiceClient, api.CalendarServiceService, `127.0.0.1:${service.grpcPort}`);
    source = createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);
  });

  afterAll(async () => {
    client.close();
    source.close();
    await service.lifecycle.stop();
    await courses.close();
    await identity?.close();
    await capture.close();
    await publisherConnection.close();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code, details: error.details }),
    );

  /** The captured events of a type about one calendar event, waiting until `count` arrived. */
  const announced = (type: string, eventId: string, count = 1) =>
    eventually(async () => {
      const found = capture.events.filter((envelope: EventEnvelope) => {
        const value = envelope.payload?.value;
        return envelope.type === type && value !== undefined && "eventId" in value && value.eventId === eventId;
      });
      return found.length >= count ? found : undefined;
    }, 10_000);

  const create = (userId: string, fields: Partial<api.CreateEventRequest> = {}) =>
    client.createEvent({
      userId,
      title: "Lecture",
      startDate: new Date("2026-03-02T09:00:00Z"),
      eventType: EventType.EVENT_TYPE_CLASS,
      priority: EventPriority.EVENT_PRIORITY_UNSPECIFIED,
      color: "#3b82f6",
      ...fields,
    });

  it("creates, reads, updates (with clear_fields) and deletes an event, announcing each change through the outbox", async () => {
    const courseId = randomUUID();
    const { event } = await create("alice", {
      title: "Cell Biology midterm",
      description: "Chapters 1-4",
      endDate: new Date("2026-03-02T11:00:00Z"),
      eventType: EventType.EVENT_TYPE_EXAM,
      location: "Hall B",
      color: "RebeccaPurple",
      courseId,
    });
    expect(event).toMatchObject({
      userId: "alice",
      title: "Cell Biology midterm",
      eventType: EventType.EVENT_TYPE_EXAM,
      priority: EventPriority.EVENT_PRIORITY_MEDIUM,
      color: "RebeccaPurple",
      reminderMinutes: 30,
      courseId,
      startDate: new Date("2026-03-02T09:00:00Z"),
    });
    const eventId = event!.id;
    const [created] = await announced("calendar.event.created.v1", eventId);
    expect(created).toMatchObject({ source: "calendar", userId: "alice" });
    expect(created.payload?.value).toMatchObject({
      courseId,
      searchable: {
        type: indexing.SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
        id: eventId,
        title: "Cell Biology midterm",
        keywords: ["Hall B", "EXAM"],
        content: "Chapters 1-4",
        metadata: { startDate: "2026-03-02T09:00:00.000Z", endDate: "2026-03-02T11:00:00.000Z", eventType: "EXAM", priority: "MEDIUM" },
        updatedAt: event!.updatedAt,
      },
    });

    expect((await client.getEvent({ userId: "alice", eventId })).event).toEqual(event);

    const { event: updated } = await client.updateEvent({
      userId: "alice",
      eventId,
      title: "Midterm (moved)",
      priority: EventPriority.EVENT_PRIORITY_HIGH,
      eventType: EventType.EVENT_TYPE_UNSPECIFIED,
      reminderMinutes: 0,
      clearFields: ["description", "end_date", "location", "course_id"],
    });
    expect(updated).toMatchObject({
      title: "Midterm (moved)",
      priority: EventPriority.EVENT_PRIORITY_HIGH,
      eventType: EventType.EVENT_TYPE_EXAM,
      reminderMinutes: 0,
    });
    for (const cleared of ["description", "endDate", "location", "courseId"] as const) expect(updated![cleared]).toBeUndefined();
    expect(updated!.updatedAt!.getTime()).toBeGreaterThan(event!.updatedAt!.getTime());
    const [updatedEvent] = await announced("calendar.event.updated.v1", eventId);
    expect(updatedEvent.payload?.value).toMatchObject({
      searchable: { title: "Midterm (moved)", keywords: ["EXAM"], content: "", updatedAt: updated!.updatedAt },
    });

    // endDate ≥ startDate also after a change that moves only the start.
    await client.updateEvent({ userId: "alice", eventId, endDate: new Date("2026-03-02T12:00:00Z"), eventType: 0, priority: 0, clearFields: [] });
    expect(
      await refusal(
        client.updateEvent({ userId: "alice", eventId, startDate: new Date("2026-03-02T13:00:00Z"), eventType: 0, priority: 0, clearFields: [] }),
      ),
    ).toEqual({ kind: "validation", code: "VALIDATION_ERROR", details: [{ field: "endDate", message: "must not be before startDate" }] });

    await client.deleteEvent({ userId: "alice", eventId });
    const [deleted] = await announced("calendar.event.deleted.v1", eventId);
    expect(deleted.payload).toEqual({
      $case: "calendarEventDeleted",
      value: { eventId, googleEventId: undefined, googleCalendarId: undefined, fromGoogle: false },
    });
    expect(await refusal(client.getEvent({ userId: "alice", eventId }))).toMatchObject({ kind: "not_found", code: "CALENDAR_EVENT_NOT_FOUND" });
  });

  it("scopes every operation to the owner: another user's event is CALENDAR_EVENT_NOT_FOUND, a malformed id invalid", async () => {
    const { event } = await create("carol");
    const eventId = event!.id;
    const notFound = { kind: "not_found", code: "CALENDAR_EVENT_NOT_FOUND" };
    expect(await refusal(client.getEvent({ userId: "dave", eventId }))).toMatchObject(notFound);
    expect(await refusal(client.updateEvent({ userId: "dave", eventId, title: "Mine", eventType: 0, priority: 0, clearFields: [] }))).toMatchObject(
      notFound,
    );
    expect(await refusal(client.deleteEvent({ userId: "dave", eventId }))).toMatchObject(notFound);
    expect(await refusal(client.getEvent({ userId: "carol", eventId: randomUUID() }))).toMatchObject(notFound);
    expect((await client.listEvents({ userId: "dave", eventType: 0 })).events).toEqual([]);
    expect(await refusal(client.getEvent({ userId: "carol", eventId: "not-an-id" }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "id", message: "must be an event id (UUID)" }],
    });
    expect((await client.getEvent({ userId: "carol", eventId })).event?.title).toBe("Lecture");
  });

  it("answers NOT_FOUND for a course of another user and refuses invalid input with a violation per field", async () => {
    expect(await refusal(create("erin", { courseId: foreignCourse }))).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    const { event } = await create("erin");
    expect(
      await refusal(client.updateEvent({ userId: "erin", eventId: event!.id, courseId: foreignCourse, eventType: 0, priority: 0, clearFields: [] })),
    ).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    expect(
      await refusal(
        client.createEvent({
          userId: "erin",
          title: " ",
          description: "x".repeat(1001),
          eventType: EventType.EVENT_TYPE_UNSPECIFIED,
          priority: 0,
          color: "rgb(1,2,3)",
          reminderMinutes: 40_321,
        }),
      ),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "title", message: "must not be empty" },
        { field: "description", message: "must be at most 1000 characters" },
        { field: "startDate", message: "is required" },
        { field: "eventType", message: "is required" },
        { field: "color", message: "must be a hex code (#RGB or #RRGGBB) or a CSS color name" },
        { field: "reminderMinutes", message: "must be a whole number from 0 to 40320" },
      ],
    });
    expect((await client.listEvents({ userId: "erin", eventType: 0 })).page?.total).toBe(1);
  });

  it("lists by start then id with each filter, paginated, the total in every page", async () => {
    const userId = `lister-${uniqueSuffix()}`;
    const courseId = randomUUID();
    const { event: exam } = await create(userId, {
      title: "Exam",
      startDate: new Date("2026-04-03T09:00:00Z"),
      eventType: EventType.EVENT_TYPE_EXAM,
      courseId,
    });
    const { event: lecture } = await create(userId, {
      title: "Lecture",
      startDate: new Date("2026-04-01T09:00:00Z"),
      endDate: new Date("2026-04-01T10:00:00Z"),
    });
    const { event: deadline } = await create(userId, {
      title: "Essay due",
      startDate: new Date("2026-04-02T23:59:00Z"),
      eventType: EventType.EVENT_TYPE_DEADLINE,
      courseId,
    });
    const titles = async (request: Partial<api.ListEventsRequest>) =>
      (await client.listEvents({ userId, eventType: 0, ...request })).events.map((event) => event.title);

    expect(await titles({})).toEqual(["Lecture", "Essay due", "Exam"]);
    expect(await titles({ startsFrom: new Date("2026-04-02T00:00:00Z") })).toEqual(["Essay due", "Exam"]);
    expect(await titles({ endsBefore: new Date("2026-04-03T00:00:00Z") })).toEqual(["Lecture", "Essay due"]);
    expect(await titles({ endsBefore: new Date("2026-04-01T10:00:00Z") })).toEqual([]);
    expect(await titles({ eventType: EventType.EVENT_TYPE_DEADLINE })).toEqual(["Essay due"]);
    expect(await titles({ courseId })).toEqual(["Essay due", "Exam"]);
    expect(await titles({ courseId, startsFrom: new Date("2026-04-03T00:00:00Z") })).toEqual(["Exam"]);

    const page = await client.listEvents({ userId, eventType: 0, page: { limit: 2, offset: 1 } });
    expect(page.events.map((event) => event.id)).toEqual([deadline!.id, exam!.id]);
    expect(page.page).toEqual({ limit: 2, offset: 1, total: 3, hasMore: false });
    expect((await client.listEvents({ userId, eventType: 0, page: { limit: 1, offset: 0 } })).page).toEqual({
      limit: 1,
      offset: 0,
      total: 3,
      hasMore: true,
    });
    expect((await client.listEvents({ userId, eventType: 0, page: { limit: 2, offset: 10 } })).page).toEqual({
      limit: 2,
      offset: 10,
      total: 3,
      hasMore: false,
    });
    expect((await client.listEvents({ userId, eventType: 0 })).page).toEqual({ limit: 50, offset: 0, total: 3, hasMore: false });
    expect(lecture!.id).toBeDefined();
    expect(await refusal(client.listEvents({ userId, eventType: 0, page: { limit: 101, offset: 0 } }))).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("detaches a deleted course's events (course_id null) and announces each as updated", async () => {
    const userId = `owner-${uniqueSuffix()}`;
    const courseId = randomUUID();
    const keptCourse = randomUUID();
    const { event: first } = await create(userId, { title: "Lab 1", courseId });
    const { event: second } = await create(userId, { title: "Lab 2", courseId, startDate: new Date("2026-03-09T09:00:00Z") });
    const { event: kept } = await create(userId, { title: "Other course", courseId: keptCourse });
    // Another user's event on a course of the same id is not theirs to detach.
    const { event: foreign } = await create("mallory", { courseId });

    await publisher.publish([createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Biology 101" } })]);
    await eventually(async () => (await client.listEvents({ userId, eventType: 0, courseId })).events.length === 0, 10_000);
    const after = await client.listEvents({ userId, eventType: 0 });
    expect(after.events.map((event) => [event.title, event.courseId])).toEqual([
      ["Lab 1", undefined],
      ["Other course", keptCourse],
      ["Lab 2", undefined],
    ]);
    for (const detached of [first!, second!]) {
      const [update] = await announced("calendar.event.updated.v1", detached.id);
      expect(update.payload?.value).toMatchObject({
        eventId: detached.id,
        courseId: undefined,
        searchable: { courseId: undefined, title: detached.title },
      });
    }
    expect(
      capture.events.some(
        (envelope) =>
          envelope.type === "calendar.event.updated.v1" &&
          envelope.payload?.value &&
          "eventId" in envelope.payload.value &&
          envelope.payload.value.eventId === kept!.id,
      ),
    ).toBe(false);
    expect((await client.getEvent({ userId: "mallory", eventId: foreign!.id })).event?.courseId).toBe(courseId);
  });

  it("lists searchables over SearchableSourceService: paged in id order, one user's or all", async () => {
    const owner = `owner-${uniqueSuffix()}`;
    const mine: string[] = [];
    for (const title of ["A", "B", "C"]) mine.push((await create(owner, { title, location: "Room 1" })).event!.id);
    const pages: indexing.Searchable[][] = [];
    let pageToken = "";
    do {
      const page = await source.listSearchables({ userId: owner, pageToken, pageSize: 2 });
      pages.push(page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(pages.map((page) => page.length)).toEqual([2, 1]);
    expect(pages.flat().map((s) => s.id)).toEqual([...mine].sort());
    expect(pages.flat()[0]).toMatchObject({
      type: indexing.SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
      keywords: ["Room 1", "CLASS"],
      userId: owner,
    });
    const everyone = await source.listSearchables({ pageToken: "", pageSize: 1000 });
    expect(everyone.searchables.map((s) => s.id)).toEqual(expect.arrayContaining(mine));
    expect(await refusal(source.listSearchables({ pageToken: "garbage", pageSize: 0 }))).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("answers the spec's codes of a failed operation when the database fails, never the cause", async () => {
    const owner = `owner-${uniqueSuffix()}`;
    const { event } = await create(owner);
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    // The table vanishes for a moment: every statement on it fails as a broken database would make it fail.
    await db.query("ALTER TABLE calendar_event RENAME TO calendar_event_away");
    try {
      const internal = (code: string) => ({ kind: "internal", code });
      expect(await refusal(create(owner))).toEqual({ ...internal("CALENDAR_EVENT_CREATE_ERROR"), details: [] });
      expect(
        await refusal(client.updateEvent({ userId: owner, eventId: event!.id, title: "Moved", eventType: 0, priority: 0, clearFields: [] })),
      ).toMatchObject(internal("CALENDAR_EVENT_UPDATE_ERROR"));
      expect(await refusal(client.deleteEvent({ userId: owner, eventId: event!.id }))).toMatchObject(internal("CALENDAR_EVENT_DELETE_ERROR"));
      expect(await refusal(client.getEvent({ userId: owner, eventId: event!.id }))).toMatchObject(internal("CALENDAR_SERVICE_ERROR"));
      expect(await refusal(client.listEvents({ userId: owner, eventType: 0 }))).toMatchObject(internal("CALENDAR_SERVICE_ERROR"));
      const failed = await client.getEvent({ userId: owner, eventId: event!.id }).catch((error: AppError) => error);
      expect((failed as AppError).message).toBe("The calendar service failed; please try again");
    } finally {
      await db.query("ALTER TABLE calendar_event_away RENAME TO calendar_event");
      await db.end();
    }
    // Refusals keep their own codes.
    expect(await refusal(client.getEvent({ userId: "someone-else", eventId: event!.id }))).toMatchObject({ code: "CALENDAR_EVENT_NOT_FOUND" });
  });
});
