import { randomUUID } from "node:crypto";
import { calendar as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { envelopeFromJson, type EventEnvelope } from "@study/events";
import { createClient } from "@study/grpc";
import { fixedClock } from "@study/platform/clock";
import { migrationSources, startService } from "@study/runtime";
import { captureEvents, createTestDatabase, eventually, startFakeCourses, startFakeIdentity, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { PrismaCalendarEventRepository } from "../../src/adapters/db/prisma-calendar-event-repository";
import { PrismaReminderRepository } from "../../src/adapters/db/prisma-reminder-repository";
import { DEFAULT_REMINDER_SETTINGS, SendDueReminders } from "../../src/application/send-due-reminders";
import { PrismaClient } from "../../src/generated/prisma/client";
import { calendarService } from "../../src/service";
import { calendarTestEnv } from "./calendar-env";

const REMINDER_DUE = "calendar.event.reminder_due.v1";
const MINUTE = 60_000;

describe("calendar reminders with PostgreSQL", () => {
  let databaseUrl: string;
  let first: PrismaClient;
  let second: PrismaClient;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase("calendar", migrationSources(calendarService));
    // Two clients with their own connection pools: two replicas of the service.
    first = new PrismaClient(prismaOptions(databaseUrl, 4));
    second = new PrismaClient(prismaOptions(databaseUrl, 4));
  });

  afterAll(async () => {
    await first.$disconnect();
    await second.$disconnect();
  });

  const addEvent = async (start: Date, changes: { reminderMinutes?: number; title?: string } = {}) => {
    const id = randomUUID();
    await first.calendarEvent.create({
      data: {
        id,
        userId: `user-${uniqueSuffix()}`,
        title: changes.title ?? "Lecture",
        startDate: start,
        eventType: "CLASS",
        color: "#3b82f6",
        reminderMinutes: changes.reminderMinutes ?? 30,
      },
    });
    return id;
  };

  /** The reminder events in the outbox, per calendar event id. */
  const remindersInOutbox = async (): Promise<Map<string, EventEnvelope[]>> => {
    const rows = await first.$queryRaw<{ payload: unknown }[]>`SELECT payload FROM outbox_message WHERE type = ${REMINDER_DUE}`;
    const byEvent = new Map<string, EventEnvelope[]>();
    for (const envelope of rows.map((row) => envelopeFromJson(row.payload))) {
      const value = envelope.payload?.$case === "calendarReminderDue" ? envelope.payload.value : undefined;
      if (!value) throw new Error("reminder without its payload");
      byEvent.set(value.eventId, [...(byEvent.get(value.eventId) ?? []), envelope]);
    }
    return byEvent;
  };

  it("two schedulers racing on the same due events publish exactly one reminder each", async () => {
    const clock = fixedClock("2030-01-10T08:45:00Z");
    const start = new Date("2030-01-10T09:00:00Z");
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => addEvent(new Date(start.getTime() + i * 1000))));
    // Small batches, so that the two interleave over several transactions.
    const settings = { ...DEFAULT_REMINDER_SETTINGS, batchSize: 3 };
    const replicas = [first, second].map((db) => new SendDueReminders(new PrismaReminderRepository(db), clock, settings));

    const sent = await Promise.all([...replicas, ...replicas].map((replica) => replica.execute()));
    expect(sent.reduce((a, b) => a + b, 0)).toBe(40);

    const reminders = await remindersInOutbox();
    for (const id of ids) expect(reminders.get(id)).toHaveLength(1);
    expect(await Promise.all(replicas.map((replica) => replica.execute()))).toEqual([0, 0]);
  });

  it("skips an event another replica holds instead of waiting for it, and leaves it to that replica", async () => {
    const clock = fixedClock("2030-02-10T08:45:00Z");
    const held = await addEvent(new Date("2030-02-10T09:00:00Z"));
    const free = await addEvent(new Date("2030-02-10T09:05:00Z"));
    const other = new SendDueReminders(new PrismaReminderRepository(second), clock);

    await first.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM calendar_event WHERE id = ${held}::uuid FOR UPDATE`;
      expect(await other.execute()).toBe(1);
    });
    const reminders = await remindersInOutbox();
    expect(reminders.get(free)).toHaveLength(1);
    expect(reminders.get(held)).toBeUndefined();
    expect(await other.execute()).toBe(1);
    expect((await remindersInOutbox()).get(held)).toHaveLength(1);
  });

  it("reminds a moved event again at its new time, never a deleted one or one with reminderMinutes 0", async () => {
    const clock = fixedClock("2030-03-10T08:30:00Z");
    const send = new SendDueReminders(new PrismaReminderRepository(first), clock);
    const moved = await addEvent(new Date("2030-03-10T09:00:00Z"));
    const deleted = await addEvent(new Date("2030-03-10T09:10:00Z"), { title: "Cancelled" });
    const silent = await addEvent(new Date("2030-03-10T08:31:00Z"), { reminderMinutes: 0 });
    await first.calendarEvent.delete({ where: { id: deleted } });

    expect(await send.execute()).toBe(1);
    await first.calendarEvent.update({ where: { id: moved }, data: { startDate: new Date("2030-03-10T12:00:00Z") } });
    clock.set("2030-03-10T11:29:59Z");
    expect(await send.execute()).toBe(0);
    clock.set("2030-03-10T11:30:00Z");
    expect(await send.execute()).toBe(1);
    clock.advance(10 * MINUTE);
    expect(await send.execute()).toBe(0);

    const reminders = await remindersInOutbox();
    const startsReminded = (reminders.get(moved) ?? []).map((envelope) =>
      envelope.payload?.$case === "calendarReminderDue" ? envelope.payload.value.startDate?.toISOString() : undefined,
    );
    expect(startsReminded.sort()).toEqual(["2030-03-10T09:00:00.000Z", "2030-03-10T12:00:00.000Z"]);
    expect(reminders.get(deleted)).toBeUndefined();
    expect(reminders.get(silent)).toBeUndefined();
  });

  it("does not undo a reminder when an event read before the claim is saved after it", async () => {
    const clock = fixedClock("2030-04-10T08:45:00Z");
    const send = new SendDueReminders(new PrismaReminderRepository(first), clock);
    const id = await addEvent(new Date("2030-04-10T09:00:00Z"));
    const { userId } = await first.calendarEvent.findUniqueOrThrow({ where: { id } });
    const events = new PrismaCalendarEventRepository(first);
    const readBeforeClaim = await events.findOwned(userId, id);
    if (!readBeforeClaim) throw new Error("event missing");

    expect(await send.execute()).toBe(1);
    await events.update({ ...readBeforeClaim, title: "Renamed", updatedAt: clock.now() }, () => []);
    expect(await send.execute()).toBe(0);
    expect((await remindersInOutbox()).get(id)).toHaveLength(1);
  });

  it("the running service sends a due reminder through the outbox to RabbitMQ", async () => {
    const exchange = `test.${uniqueSuffix()}`;
    const capture = await captureEvents(testRabbitMqUrl(), exchange, REMINDER_DUE);
    const courses = await startFakeCourses(new Set());
    // No Google account linked: nothing is pushed to Google.
    const identity = await startFakeIdentity();
    const service = await startService(calendarService, {
      handleSignals: false,
      env: calendarTestEnv(databaseUrl, { courses, identity }, { EVENT_EXCHANGE: exchange, CALENDAR_REMINDER_POLL_MS: "200" }),
    });
    const client = createClient(api.CalendarServiceClient, api.CalendarServiceService, `127.0.0.1:${service.grpcPort}`);
    try {
      // Starts in 10 minutes with the default 30-minute reminder: due at once.
      const userId = `user-${uniqueSuffix()}`;
      const { event } = await client.createEvent({
        userId,
        title: "Seminar",
        startDate: new Date(Date.now() + 10 * MINUTE),
        eventType: api.EventType.EVENT_TYPE_MEETING,
        priority: api.EventPriority.EVENT_PRIORITY_UNSPECIFIED,
        color: "teal",
        location: "Room 7",
      });
      const reminder = await eventually(
        async () =>
          capture.events.find((envelope) => envelope.payload?.$case === "calendarReminderDue" && envelope.payload.value.eventId === event?.id),
        10_000,
      );
      expect(reminder).toMatchObject({ type: REMINDER_DUE, userId, payload: { value: { title: "Seminar", location: "Room 7", minutesBefore: 30 } } });
    } finally {
      client.close();
      await service.lifecycle.stop();
      await courses.close();
      await identity.close();
      await capture.close();
    }
  });
});
