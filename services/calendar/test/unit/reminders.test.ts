import { randomUUID } from "node:crypto";
import type { EventEnvelope } from "@study/events/envelope";
import { createLogger, loadConfig } from "@study/platform";
import { fixedClock } from "@study/platform/clock";
import { scheduleReminders } from "../../src/adapters/scheduler/reminder-scheduler";
import type { ReminderClaim, ReminderRepository } from "../../src/application/ports/reminder-repository.port";
import { SendDueReminders } from "../../src/application/send-due-reminders";
import { calendarConfigSchema } from "../../src/config";
import type { CalendarEvent } from "../../src/domain/calendar-event";
import { DEFAULT_REMINDER_GRACE_MS, isReminderDue, reminderTime, type ReminderState } from "../../src/domain/reminder";

const MINUTE = 60_000;
const at = (iso: string) => new Date(iso);

describe("the reminder due rule", () => {
  const start = at("2026-03-02T09:00:00Z");
  const event = (changes: Partial<ReminderState> = {}): ReminderState => ({ startDate: start, reminderMinutes: 30, remindedFor: null, ...changes });

  it("is due from reminderMinutes before the start, not a millisecond earlier", () => {
    expect(reminderTime(event())).toEqual(at("2026-03-02T08:30:00Z"));
    expect(isReminderDue(event(), at("2026-03-02T08:29:59.999Z"))).toBe(false);
    expect(isReminderDue(event(), at("2026-03-02T08:30:00Z"))).toBe(true);
    expect(isReminderDue(event(), at("2026-03-02T08:59:00Z"))).toBe(true);
  });

  it("is still due after the start within the grace (reminders missed while down), not after it", () => {
    expect(DEFAULT_REMINDER_GRACE_MS).toBe(60 * MINUTE);
    expect(isReminderDue(event(), at("2026-03-02T09:59:59.999Z"))).toBe(true);
    expect(isReminderDue(event(), at("2026-03-02T10:00:00Z"))).toBe(false);
    expect(isReminderDue(event(), at("2026-03-02T09:10:00Z"), 5 * MINUTE)).toBe(false);
  });

  it("is never due with reminderMinutes 0", () => {
    expect(isReminderDue(event({ reminderMinutes: 0 }), start)).toBe(false);
    expect(isReminderDue(event({ reminderMinutes: 0 }), at("2026-03-02T08:59:00Z"))).toBe(false);
  });

  it("is not due again for the start it was sent for, but is for a moved start", () => {
    expect(isReminderDue(event({ remindedFor: start }), at("2026-03-02T08:45:00Z"))).toBe(false);
    const moved = event({ startDate: at("2026-03-02T11:00:00Z"), remindedFor: start });
    expect(isReminderDue(moved, at("2026-03-02T10:29:00Z"))).toBe(false);
    expect(isReminderDue(moved, at("2026-03-02T10:30:00Z"))).toBe(true);
  });
});

/** Claims with the domain's rule over a list, as the Prisma adapter does with its query. */
class InMemoryReminderRepository implements ReminderRepository {
  readonly outbox: EventEnvelope[] = [];
  readonly claims: ReminderClaim[] = [];
  readonly events = new Map<string, CalendarEvent & { remindedFor: Date | null }>();

  async claimDue(claim: ReminderClaim, announce: (event: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent[]> {
    this.claims.push(claim);
    const due = [...this.events.values()].filter((event) => isReminderDue(event, claim.now, claim.graceMs)).slice(0, claim.limit);
    for (const event of due) {
      event.remindedFor = event.startDate;
      this.outbox.push(...announce(event));
    }
    return due;
  }

  add(changes: Partial<CalendarEvent> = {}): CalendarEvent {
    const now = at("2026-03-01T00:00:00Z");
    const event: CalendarEvent & { remindedFor: Date | null } = {
      id: randomUUID(),
      userId: "alice",
      title: "Lecture",
      description: null,
      startDate: at("2026-03-02T09:00:00Z"),
      endDate: null,
      eventType: "CLASS",
      location: "Room 101",
      priority: "MEDIUM",
      color: "#3b82f6",
      courseId: null,
      googleEventId: null,
      googleCalendarId: null,
      reminderMinutes: 30,
      allDayDate: null,
      createdAt: now,
      updatedAt: now,
      remindedFor: null,
      ...changes,
    };
    this.events.set(event.id, event);
    return event;
  }
}

describe("SendDueReminders", () => {
  it("announces each due reminder once, with the event's title, start, location and minutes, at the clock's time", async () => {
    const repository = new InMemoryReminderRepository();
    const clock = fixedClock("2026-03-02T07:59:00Z");
    const send = new SendDueReminders(repository, clock);
    const lecture = repository.add({ courseId: randomUUID() });
    const exam = repository.add({ title: "Exam", startDate: at("2026-03-02T10:00:00Z"), reminderMinutes: 120, location: null });

    expect(await send.execute()).toBe(0);
    clock.set("2026-03-02T08:30:00Z");
    expect(await send.execute()).toBe(2);
    expect(await send.execute()).toBe(0);

    expect(repository.claims[1]).toMatchObject({ now: at("2026-03-02T08:30:00Z"), graceMs: DEFAULT_REMINDER_GRACE_MS });
    expect(repository.outbox.map((envelope) => [envelope.type, envelope.userId, envelope.payload?.value])).toEqual([
      [
        "calendar.event.reminder_due.v1",
        "alice",
        { eventId: lecture.id, title: "Lecture", startDate: lecture.startDate, location: "Room 101", minutesBefore: 30, courseId: lecture.courseId },
      ],
      [
        "calendar.event.reminder_due.v1",
        "alice",
        { eventId: exam.id, title: "Exam", startDate: exam.startDate, location: undefined, minutesBefore: 120, courseId: undefined },
      ],
    ]);
  });

  it("claims batch after batch until one comes back short", async () => {
    const repository = new InMemoryReminderRepository();
    for (let i = 0; i < 5; i += 1) repository.add();
    const send = new SendDueReminders(repository, fixedClock("2026-03-02T08:45:00Z"), { graceMs: DEFAULT_REMINDER_GRACE_MS, batchSize: 2 });

    expect(await send.execute()).toBe(5);
    expect(repository.claims.map((claim) => claim.limit)).toEqual([2, 2, 2]);
    const reminded = repository.outbox.map((envelope) => (envelope.payload?.$case === "calendarReminderDue" ? envelope.payload.value.eventId : ""));
    expect(new Set(reminded).size).toBe(5);
  });

  it("reminds a moved event again at its new time, and never one with reminderMinutes 0", async () => {
    const repository = new InMemoryReminderRepository();
    const clock = fixedClock("2026-03-02T08:40:00Z");
    const send = new SendDueReminders(repository, clock);
    const lecture = repository.add();
    repository.add({ reminderMinutes: 0 });
    expect(await send.execute()).toBe(1);

    const stored = repository.events.get(lecture.id);
    if (!stored) throw new Error("event missing");
    stored.startDate = at("2026-03-02T12:00:00Z");
    expect(await send.execute()).toBe(0);
    clock.set("2026-03-02T11:30:00Z");
    expect(await send.execute()).toBe(1);
    expect(repository.outbox).toHaveLength(2);
  });
});

describe("the reminder settings", () => {
  const required = {
    DATABASE_URL: "postgresql://localhost/calendar",
    RABBITMQ_URL: "amqp://localhost",
    COURSES_GRPC_ADDRESS: "localhost:50051",
    IDENTITY_GRPC_ADDRESS: "localhost:50050",
  };

  it("polls every 15 s by default and takes the interval from CALENDAR_REMINDER_POLL_MS", () => {
    expect(loadConfig(calendarConfigSchema, required).CALENDAR_REMINDER_POLL_MS).toBe(15_000);
    expect(loadConfig(calendarConfigSchema, { ...required, CALENDAR_REMINDER_POLL_MS: "2000" }).CALENDAR_REMINDER_POLL_MS).toBe(2_000);
  });

  it("refuses an interval that is not a whole number of 100 ms to 1 h at start-up", () => {
    for (const value of ["soon", "50", "1.5", "3600001"]) {
      expect(() => loadConfig(calendarConfigSchema, { ...required, CALENDAR_REMINDER_POLL_MS: value })).toThrow(/CALENDAR_REMINDER_POLL_MS/);
    }
  });
});

describe("the Google settings", () => {
  const required = {
    DATABASE_URL: "postgresql://localhost/calendar",
    RABBITMQ_URL: "amqp://localhost",
    COURSES_GRPC_ADDRESS: "localhost:50051",
    IDENTITY_GRPC_ADDRESS: "localhost:50050",
  };

  it("syncs 30 days back and 180 ahead with Google's own API by default", () => {
    expect(loadConfig(calendarConfigSchema, required)).toMatchObject({
      GOOGLE_CALENDAR_API_URL: "https://www.googleapis.com/",
      GOOGLE_SYNC_PAST_DAYS: 30,
      GOOGLE_SYNC_FUTURE_DAYS: 180,
      GOOGLE_CALENDAR_TIMEOUT_MS: 15_000,
    });
  });

  it("needs the identity service's address, and refuses a Google URL or window that cannot be", () => {
    const { IDENTITY_GRPC_ADDRESS: _identity, ...withoutIdentity } = required;
    expect(() => loadConfig(calendarConfigSchema, withoutIdentity)).toThrow(/IDENTITY_GRPC_ADDRESS: is required but not set/);
    expect(() => loadConfig(calendarConfigSchema, { ...required, GOOGLE_CALENDAR_API_URL: "googleapis" })).toThrow(
      /GOOGLE_CALENDAR_API_URL: must be an http\(s\) URL/,
    );
    expect(() => loadConfig(calendarConfigSchema, { ...required, GOOGLE_CALENDAR_API_URL: "ftp://example.com/" })).toThrow(/GOOGLE_CALENDAR_API_URL/);
    expect(() => loadConfig(calendarConfigSchema, { ...required, GOOGLE_SYNC_FUTURE_DAYS: "0" })).toThrow(/GOOGLE_SYNC_FUTURE_DAYS/);
  });
});

describe("scheduleReminders", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("runs a pass every interval, goes on after a failed pass, and runs none after stop", async () => {
    const outcomes: (() => Promise<CalendarEvent[]>)[] = [async () => [], () => Promise.reject(new Error("database gone"))];
    const claimDue = jest.fn((_claim: ReminderClaim) => (outcomes.shift() ?? (async () => []))());
    const logger = createLogger("test", "silent");
    const errors = jest.spyOn(logger, "error");
    const scheduled = scheduleReminders(1_000, new SendDueReminders({ claimDue }, fixedClock()), logger);

    await jest.advanceTimersByTimeAsync(999);
    expect(claimDue).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(claimDue).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(claimDue).toHaveBeenCalledTimes(3);
    expect(errors).toHaveBeenCalledWith(expect.objectContaining({ err: new Error("database gone") }), "calendar reminder pass failed");

    await scheduled.stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(claimDue).toHaveBeenCalledTimes(3);
  });
});
