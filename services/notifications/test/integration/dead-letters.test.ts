import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { migrationSources } from "@study/runtime";
import { createTestDatabase, refuseWrites, runDeadLetterDrill, uniqueSuffix } from "@study/testkit";
import { PrismaNotificationRepository } from "../../src/adapters/db/prisma-notification-repository";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { NotifyOnEvent } from "../../src/application/notify-on-event";
import { courseDeletedMessage } from "../../src/domain/notification";
import { PrismaClient } from "../../src/generated/prisma/client";
import { notificationsMigrations } from "../../src/migrations";

/** The README's dead-letter runbook, done on the notifications consumer (see runDeadLetterDrill). */
describe("notifications consumer: dead letters and replay", () => {
  let db: PrismaClient;

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("notifications_dlq", migrationSources(notificationsMigrations)), 4));
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it("dead-letters a notification the database refuses, comes back when replayed unrepaired, and notifies once after the repair", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const event = createEvent("courses", userId, { $case: "courseDeleted", value: { courseId: randomUUID(), name: "Microbiology" } });

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) => startDomainEventsConsumer({ ...settings, db, notifyOnEvent: new NotifyOnEvent(new PrismaNotificationRepository(db)) }),
      breakCause: () => refuseWrites(db, "notification", { operations: ["INSERT"], message: "notification table is read-only (drill)" }),
      observe: async () => ({
        notifications: (await db.notification.findMany({ where: { userId }, select: { content: true } })).map((row) => row.content),
      }),
    });

    expect(drill.deadLetter).toEqual({
      eventId: event.id,
      type: "courses.course.deleted.v1",
      attempts: 5,
      lastError: expect.stringContaining("notification table is read-only (drill)"),
    });
    expect(drill.deadLetterAgain).toEqual(drill.deadLetter);
    const nothing = { notifications: [], inbox: 0 };
    const notifiedOnce = { notifications: [courseDeletedMessage("Microbiology")], inbox: 1 };
    // The handler's write and the inbox row commit together: nothing of the failed attempts is left.
    expect(drill.states).toEqual({
      before: nothing,
      deadLettered: nothing,
      replayedBeforeRepair: nothing,
      replayed: notifiedOnce,
      duplicate: notifiedOnce,
    });
    expect(drill.replays).toEqual([1, 1, 0]);
    expect(drill.handled).toEqual([{ duplicate: false }, { duplicate: true }]);
  });
});
