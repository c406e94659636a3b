import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { migrationSources } from "@study/runtime";
import { createTestDatabase, expectedDrillOutcome, refuseWrites, runDeadLetterDrill, uniqueSuffix, untouchedUntilRepair } from "@study/testkit";
import { PrismaNotificationRepository } from "../../src/adapters/db/prisma-notification-repository";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { NotifyOnEvent } from "../../src/application/notify-on-event";
import { courseDeletedMessage } from "../../src/domain/notification";
import { PrismaClient } from "../../src/generated/prisma/client";
import { notificationsMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on the notifications consumer (see runDeadLetterDrill). */
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

    const nothing = { notifications: [] };
    const notifiedOnce = { notifications: [courseDeletedMessage("Microbiology")] };
    // The handler's write and the inbox row commit together: nothing of the failed attempts is left.
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "courses.course.deleted.v1",
        attempts: 5,
        lastError: expect.stringContaining("notification table is read-only (drill)"),
        states: untouchedUntilRepair(nothing, notifiedOnce),
      }),
    );
  });
});
