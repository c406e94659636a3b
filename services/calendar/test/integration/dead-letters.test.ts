import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { createLogger } from "@study/platform";
import { migrationSources } from "@study/runtime";
import {
  createTestDatabase,
  expectedDrillOutcome,
  GOOGLE_ERRORS,
  refuseWrites,
  runDeadLetterDrill,
  startGoogleCalendarServer,
  uniqueSuffix,
  untouchedUntilRepair,
  type LocalGoogleCalendar,
} from "@study/testkit";
import { PrismaCalendarEventRepository } from "../../src/adapters/db/prisma-calendar-event-repository";
import { PrismaGoogleSyncRepository } from "../../src/adapters/db/prisma-google-sync-repository";
import { CONSUMER_NAME, startCourseEventsConsumer } from "../../src/adapters/events/course-events-consumer";
import { GOOGLE_PUSH_CONSUMER, startGooglePushConsumer } from "../../src/adapters/events/google-push-consumer";
import { GoogleCalendarClient } from "../../src/adapters/google/google-calendar-client";
import { DetachCourse } from "../../src/application/detach-course";
import { PushToGoogle } from "../../src/application/google/push-to-google";
import { PrismaClient } from "../../src/generated/prisma/client";
import { calendarMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on the calendar's two consumers (see runDeadLetterDrill). */
describe("calendar consumers: dead letters and replay", () => {
  let db: PrismaClient;
  let google: LocalGoogleCalendar;
  const logger = createLogger("calendar-dlq-test", "silent");

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("calendar_dlq", migrationSources(calendarMigrations)), 4));
    google = await startGoogleCalendarServer();
  });
  afterAll(async () => {
    await db?.$disconnect();
    await google?.close();
  });

  const anEvent = (userId: string, courseId: string | null) =>
    db.calendarEvent.create({
      data: {
        id: randomUUID(),
        userId,
        title: "Office hours",
        startDate: new Date(Date.now() + 2 * 86_400_000),
        eventType: "MEETING",
        color: "#039be5",
        courseId,
      },
    });
  const outboxCount = async (type: string) =>
    (await db.$queryRawUnsafe<{ count: number }[]>("SELECT count(*)::int AS count FROM outbox_message WHERE type = $1", type))[0].count;

  it(`${CONSUMER_NAME}: a course deletion the database refuses is dead-lettered, and detaches the course's events once after the repair`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const courseId = randomUUID();
    const stored = await anEvent(userId, courseId);
    const event = createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Microbiology" } });
    const updatedBefore = await outboxCount("calendar.event.updated.v1");

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) => startCourseEventsConsumer({ ...settings, db, detachCourse: new DetachCourse(new PrismaCalendarEventRepository(db)) }),
      breakCause: () => refuseWrites(db, "calendar_event", { operations: ["UPDATE"], message: "calendar_event is read-only (drill)" }),
      observe: async () => ({
        courseId: (await db.calendarEvent.findUniqueOrThrow({ where: { id: stored.id } })).courseId,
        updatedEvents: (await outboxCount("calendar.event.updated.v1")) - updatedBefore,
      }),
    });

    const attached = { courseId, updatedEvents: 0 };
    // The detachment, its CalendarEventUpdated and the inbox row commit together: once.
    const detachedOnce = { courseId: null, updatedEvents: 1 };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "courses.course.deleted.v1",
        attempts: 5,
        lastError: expect.stringContaining("calendar_event is read-only (drill)"),
        states: untouchedUntilRepair(attached, detachedOnce),
      }),
    );
  });

  it(`${GOOGLE_PUSH_CONSUMER}: a push Google keeps refusing is dead-lettered, and makes one Google copy after the repair`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const token = google.issueToken(userId);
    const stored = await anEvent(userId, null);
    const event = createEvent("calendar", userId, {
      $case: "calendarEventCreated",
      value: { eventId: stored.id, courseId: undefined, searchable: undefined, fromGoogle: false },
    });
    const repository = new PrismaCalendarEventRepository(db);
    const push = new PushToGoogle(
      // What the identity service answers for a linked account.
      { googleAccessToken: async () => token },
      new GoogleCalendarClient({ rootUrl: google.rootUrl, timeoutMs: 5_000 }),
      repository,
      new PrismaGoogleSyncRepository(db),
      logger,
    );
    const inserts = () => google.requests.filter((request) => request.operation === "events.insert" && request.account === userId);

    const drill = await runDeadLetterDrill({
      consumer: GOOGLE_PUSH_CONSUMER,
      db,
      event,
      start: (settings) => startGooglePushConsumer({ ...settings, db, push }),
      // Google's rate limit, on every insert until the repair (the quota comes back).
      breakCause: async () => {
        google.failNext("events.insert", GOOGLE_ERRORS.tooManyRequests, 1_000);
        return async () => google.clearFailures();
      },
      observe: async () => ({
        googleCopies: google.events(userId).length,
        insertAnswers: inserts().map((request) => request.status),
        linked: (await db.calendarEvent.findUniqueOrThrow({ where: { id: stored.id } })).googleEventId !== null,
      }),
    });

    const refused = (times: number) => Array<number>(times).fill(429);
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "calendar.event.created.v1",
        attempts: 5,
        lastError: expect.stringContaining("Rate Limit Exceeded"),
        states: {
          before: { googleCopies: 0, insertAnswers: [], linked: false, inbox: 0 },
          deadLettered: { googleCopies: 0, insertAnswers: refused(5), linked: false, inbox: 0 },
          replayedBeforeRepair: { googleCopies: 0, insertAnswers: refused(10), linked: false, inbox: 0 },
          replayed: { googleCopies: 1, insertAnswers: [...refused(10), 200], linked: true, inbox: 1 },
          duplicate: { googleCopies: 1, insertAnswers: [...refused(10), 200], linked: true, inbox: 1 },
        },
      }),
    );
  });
});
