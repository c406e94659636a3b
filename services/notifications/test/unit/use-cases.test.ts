import { randomUUID } from "node:crypto";
import { fixedClock } from "@study/platform/clock";
import { CleanupReadNotifications } from "../../src/application/cleanup-read-notifications";
import { CreateNotification } from "../../src/application/create-notification";
import { GetUnreadCount } from "../../src/application/get-unread-count";
import { NotifyOnEvent } from "../../src/application/notify-on-event";
import { ListNotifications } from "../../src/application/list-notifications";
import { MarkAllRead } from "../../src/application/mark-all-read";
import { MarkNotificationRead } from "../../src/application/mark-notification-read";
import {
  courseDeletedMessage,
  createNotification,
  documentFailedMessage,
  documentProcessedMessage,
  documentProcessingStartedMessage,
  importFailedMessage,
  importStartedMessage,
  noteReadyMessage,
  referralCodeUsedMessage,
  referralTrialStartedRefereeMessage,
  referralTrialStartedReferrerMessage,
  reminderMessage,
  rewardProcessedMessage,
  syllabusEventsCreatedMessage,
  syllabusFailedMessage,
  syllabusProcessedMessage,
  welcomeMessage,
  withdrawalStatusNotification,
  type Notification,
  type NotificationType,
} from "../../src/domain/notification";
import { InMemoryNotificationRepository } from "./in-memory-notification-repository";
import { refusal } from "@study/testkit/refusal";

const DAY_MS = 24 * 60 * 60 * 1000;
const notFound = { kind: "not_found", code: "NOT_FOUND" };

let repository: InMemoryNotificationRepository;

beforeEach(() => {
  repository = new InMemoryNotificationRepository();
});

/** Stores a notification created at the given time (default: now). */
async function seed(userId: string, options: { content?: string; read?: boolean; createdAt?: Date; type?: NotificationType } = {}) {
  const createdAt = options.createdAt ?? new Date();
  const notification: Notification = {
    ...createNotification(randomUUID(), userId, { type: options.type ?? "REMINDER", content: options.content ?? "Review chapter 3" }, createdAt),
    read: options.read ?? false,
  };
  await repository.insert(notification);
  return notification;
}

describe("ListNotifications", () => {
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

  it("lists the user's notifications newest first with the unread count and the total before the limit", async () => {
    const oldest = await seed("alice", { createdAt: minutesAgo(3), read: true });
    const middle = await seed("alice", { createdAt: minutesAgo(2) });
    const newest = await seed("alice", { createdAt: minutesAgo(1) });
    await seed("bob");

    const all = await new ListNotifications(repository).execute("alice", {});
    expect(all.notifications.map((n) => n.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(all).toMatchObject({ unreadCount: 2, total: 3 });

    const limited = await new ListNotifications(repository).execute("alice", { limit: 1 });
    expect(limited.notifications.map((n) => n.id)).toEqual([newest.id]);
    expect(limited).toMatchObject({ unreadCount: 2, total: 3 });
  });

  it("lists unread notifications only when includeRead is false; total then counts unread ones", async () => {
    await seed("alice", { read: true });
    const unread = await seed("alice");
    const list = await new ListNotifications(repository).execute("alice", { includeRead: false });
    expect(list.notifications.map((n) => n.id)).toEqual([unread.id]);
    expect(list).toMatchObject({ unreadCount: 1, total: 1 });
  });

  it("returns 50 notifications by default and accepts limits of 1-100 only", async () => {
    for (let i = 0; i < 55; i += 1) await seed("alice", { createdAt: minutesAgo(i) });
    const list = await new ListNotifications(repository).execute("alice", {});
    expect(list.notifications).toHaveLength(50);
    expect(list.total).toBe(55);
    expect((await new ListNotifications(repository).execute("alice", { limit: 100 })).notifications).toHaveLength(55);

    for (const limit of [0, 101, 2.5]) {
      expect(await refusal(() => new ListNotifications(repository).execute("alice", { limit }))).toEqual({
        kind: "validation",
        code: "VALIDATION_ERROR",
        details: [{ field: "limit", message: "must be between 1 and 100" }],
      });
    }
  });

  it("requires a user id", async () => {
    expect((await refusal(() => new ListNotifications(repository).execute("", {}))).details).toEqual([{ field: "userId", message: "is required" }]);
  });
});

describe("GetUnreadCount", () => {
  it("counts the user's unread notifications only", async () => {
    await seed("alice");
    await seed("alice");
    await seed("alice", { read: true });
    await seed("bob");
    expect(await new GetUnreadCount(repository).execute("alice")).toBe(2);
    expect(await new GetUnreadCount(repository).execute("carol")).toBe(0);
  });
});

describe("MarkNotificationRead", () => {
  it("marks the notification read and stores it", async () => {
    const notification = await seed("alice", { createdAt: new Date(Date.now() - 60_000) });
    const read = await new MarkNotificationRead(repository).execute("alice", notification.id);
    expect(read).toMatchObject({ id: notification.id, read: true, createdAt: notification.createdAt });
    expect(read.updatedAt.getTime()).toBeGreaterThan(notification.updatedAt.getTime());
    expect(await repository.findOwned("alice", notification.id)).toEqual(read);
  });

  it("succeeds again on an already read notification without changing it", async () => {
    const notification = await seed("alice");
    const first = await new MarkNotificationRead(repository).execute("alice", notification.id);
    const again = await new MarkNotificationRead(repository).execute("alice", notification.id);
    expect(again).toEqual(first);
  });

  it("answers NOT_FOUND for another user's, an unknown and a malformed id, leaving the notification unread", async () => {
    const notification = await seed("alice");
    const markRead = new MarkNotificationRead(repository);
    expect(await refusal(() => markRead.execute("bob", notification.id))).toMatchObject(notFound);
    expect(await refusal(() => markRead.execute("alice", randomUUID()))).toMatchObject(notFound);
    expect(await refusal(() => markRead.execute("alice", "not-a-uuid"))).toMatchObject(notFound);
    expect((await repository.findOwned("alice", notification.id))?.read).toBe(false);
  });
});

describe("MarkAllRead", () => {
  it("marks every unread notification of the user and reports how many changed", async () => {
    await seed("alice");
    await seed("alice");
    await seed("alice", { read: true });
    await seed("bob");
    const markAllRead = new MarkAllRead(repository);
    expect(await markAllRead.execute("alice")).toBe(2);
    expect(await repository.countUnread("alice")).toBe(0);
    expect(await repository.countUnread("bob")).toBe(1);
    expect(await markAllRead.execute("alice")).toBe(0);
  });
});

describe("CreateNotification", () => {
  it("stores a new unread notification", async () => {
    const created = await new CreateNotification(repository).execute("alice", { type: "ALERT", content: " Server maintenance " });
    expect(created).toMatchObject({ userId: "alice", type: "ALERT", content: "Server maintenance", read: false });
    expect(repository.all()).toEqual([created]);
  });

  it("returns the first notification for a repeated idempotency key and stores only that one", async () => {
    const create = new CreateNotification(repository);
    const first = await create.execute("alice", { type: "REMINDER", content: "Quiz at 9" }, "quiz-42");
    const repeat = await create.execute("alice", { type: "REMINDER", content: "Quiz at 9 (retry)" }, "quiz-42");
    expect(repeat).toEqual(first);
    const otherUser = await create.execute("bob", { type: "REMINDER", content: "Quiz at 9" }, "quiz-42");
    expect(otherUser.id).not.toBe(first.id);
    expect(
      repository
        .all()
        .map((n) => n.id)
        .sort(),
    ).toEqual([first.id, otherUser.id].sort());
  });

  it("refuses an invalid notification or idempotency key and stores nothing", async () => {
    const create = new CreateNotification(repository);
    expect((await refusal(() => create.execute("alice", { type: null, content: "Hi" }))).details).toEqual([
      { field: "type", message: "must be one of SYSTEM, REMINDER, ALERT, MESSAGE" },
    ]);
    for (const key of ["", "k".repeat(256)]) {
      expect((await refusal(() => create.execute("alice", { type: "MESSAGE", content: "Hi" }, key))).details).toEqual([
        { field: "idempotencyKey", message: "must be 1-255 characters when given" },
      ]);
    }
    expect(repository.all()).toEqual([]);
  });
});

describe("NotifyOnEvent", () => {
  it("writes the welcome SYSTEM notification inside the given transaction", async () => {
    const tx = repository.begin();
    await new NotifyOnEvent(repository).userRegistered({ userId: "alice", name: "Alice" }, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(repository.all()).toEqual([expect.objectContaining({ userId: "alice", type: "SYSTEM", content: welcomeMessage("Alice"), read: false })]);
  });

  it("confirms the deletion to the course's owner inside the given transaction", async () => {
    const tx = repository.begin();
    await new NotifyOnEvent(repository).courseDeleted({ userId: "alice", courseName: "Organic Chemistry" }, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(repository.all()).toEqual([
      expect.objectContaining({ userId: "alice", type: "SYSTEM", content: courseDeletedMessage("Organic Chemistry"), read: false }),
    ]);
  });
});

describe("NotifyOnEvent for media imports", () => {
  it("announces a started import and a note ready to view as SYSTEM notifications, inside the given transaction", async () => {
    const tx = repository.begin();
    const notify = new NotifyOnEvent(repository);
    await notify.noteImportStarted({ userId: "alice", title: "Lecture 1" }, tx);
    await notify.noteTranscribed({ userId: "alice", title: "Lecture 1" }, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(
      repository
        .all()
        .map((n) => [n.type, n.content])
        .sort(),
    ).toEqual(
      [
        ["SYSTEM", importStartedMessage("Lecture 1")],
        ["SYSTEM", noteReadyMessage("Lecture 1")],
      ].sort(),
    );
  });

  it("alerts the user of a failed import with the error text", async () => {
    const tx = repository.begin();
    await new NotifyOnEvent(repository).noteImportFailed({ userId: "bob", title: "Lecture 2", errorMessage: "Unsupported format" }, tx);
    tx.commit();
    expect(repository.all()).toEqual([
      expect.objectContaining({ userId: "bob", type: "ALERT", content: importFailedMessage("Lecture 2", "Unsupported format"), read: false }),
    ]);
  });
});

describe("NotifyOnEvent for documents", () => {
  const processed = { userId: "alice", title: "Chapter 3 slides", documentType: "HANDOUT", calendarEventsCreated: null };
  const contents = () =>
    repository
      .all()
      .map((n) => [n.type, n.content])
      .sort();

  it("announces a document's processing and its success as SYSTEM notifications, inside the given transaction", async () => {
    const tx = repository.begin();
    const notify = new NotifyOnEvent(repository);
    await notify.documentUploaded({ userId: "alice", title: "Chapter 3 slides" }, tx);
    await notify.documentProcessed(processed, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(contents()).toEqual(
      [
        ["SYSTEM", documentProcessingStartedMessage("Chapter 3 slides")],
        ["SYSTEM", documentProcessedMessage("Chapter 3 slides")],
      ].sort(),
    );
  });

  it("alerts the user of a failed document with the error text, and of a failed syllabus", async () => {
    const tx = repository.begin();
    const notify = new NotifyOnEvent(repository);
    await notify.documentFailed({ userId: "bob", title: "Scan.pdf", errorMessage: "The PDF is encrypted" }, tx);
    await notify.syllabusFailed({ userId: "bob", fileName: "syllabus.docx", errorMessage: "No dates were found" }, tx);
    tx.commit();
    expect(repository.all().every((n) => n.userId === "bob" && !n.read)).toBe(true);
    expect(contents()).toEqual(
      [
        ["ALERT", documentFailedMessage("Scan.pdf", "The PDF is encrypted")],
        ["ALERT", syllabusFailedMessage("syllabus.docx", "No dates were found")],
      ].sort(),
    );
  });

  it("tells of a processed syllabus with its count, and of the events created for its course only when there are some", async () => {
    const notify = new NotifyOnEvent(repository);
    const syllabus = { ...processed, title: "BIO 101 Syllabus", documentType: "SYLLABUS" };
    let tx = repository.begin();
    await notify.documentProcessed({ ...syllabus, calendarEventsCreated: 14 }, tx);
    expect(repository.all()).toEqual([]);
    tx.commit();
    expect(contents()).toEqual(
      [
        ["SYSTEM", syllabusProcessedMessage("BIO 101 Syllabus", 14)],
        ["SYSTEM", syllabusEventsCreatedMessage("BIO 101 Syllabus", 14)],
      ].sort(),
    );

    // The same syllabus again (nothing new), or one without a count: the processed notification alone.
    repository = new InMemoryNotificationRepository();
    const again = new NotifyOnEvent(repository);
    tx = repository.begin();
    await again.documentProcessed({ ...syllabus, calendarEventsCreated: 0 }, tx);
    await again.documentProcessed({ ...syllabus, calendarEventsCreated: null }, tx);
    tx.commit();
    expect(contents()).toEqual([
      ["SYSTEM", syllabusProcessedMessage("BIO 101 Syllabus", 0)],
      ["SYSTEM", syllabusProcessedMessage("BIO 101 Syllabus", 0)],
    ]);
  });
});

describe("NotifyOnEvent for calendar reminders", () => {
  it("reminds the event's owner with a REMINDER notification inside the given transaction", async () => {
    const tx = repository.begin();
    const startDate = new Date("2026-03-02T09:00:00Z");
    await new NotifyOnEvent(repository).calendarReminderDue({ userId: "alice", title: "Lecture", startDate, location: "Room 101" }, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(repository.all()).toEqual([
      expect.objectContaining({ userId: "alice", type: "REMINDER", content: reminderMessage("Lecture", startDate, "Room 101"), read: false }),
    ]);
  });
});

describe("NotifyOnEvent for billing", () => {
  const notifications = () =>
    repository
      .all()
      .map((n) => [n.userId, n.type, n.content])
      .sort();

  it("tells the referrer that their code was used, inside the given transaction", async () => {
    const tx = repository.begin();
    await new NotifyOnEvent(repository).referralCodeUsed({ referrerId: "alice", refereeName: "Ada L." }, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(notifications()).toEqual([["alice", "SYSTEM", referralCodeUsedMessage("Ada L.")]]);
  });

  it("tells both users of a referral that the trial started, each their own reward", async () => {
    const tx = repository.begin();
    await new NotifyOnEvent(repository).referralTrialStarted(
      { referrerId: "grace", refereeId: "ada", referrerName: "Grace H.", refereeName: "Ada L.", referrerCashCents: 500, refereeFreeMonths: 1 },
      tx,
    );
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(notifications()).toEqual(
      [
        ["grace", "SYSTEM", referralTrialStartedReferrerMessage("Ada L.", 500)],
        ["ada", "SYSTEM", referralTrialStartedRefereeMessage("Grace H.", 1)],
      ].sort(),
    );
  });

  it("confirms a processed cash reward and free month to the recipient", async () => {
    const tx = repository.begin();
    const notify = new NotifyOnEvent(repository);
    const cash = { type: "CASH" as const, amountCents: 500, accountCreditCents: 500 };
    const freeMonth = { type: "FREE_MONTH" as const, extendedUntil: new Date("2026-12-24T00:00:00Z") };
    await notify.rewardProcessed({ userId: "alice", reward: cash }, tx);
    await notify.rewardProcessed({ userId: "alice", reward: freeMonth }, tx);
    tx.commit();
    expect(notifications()).toEqual(
      [
        ["alice", "SYSTEM", rewardProcessedMessage(cash)],
        ["alice", "SYSTEM", rewardProcessedMessage(freeMonth)],
      ].sort(),
    );
  });

  it("tells the user of each withdrawal status, a failed one as an ALERT", async () => {
    const tx = repository.begin();
    const notify = new NotifyOnEvent(repository);
    await notify.withdrawalStatusChanged({ userId: "bob", status: "PROCESSING", amountCents: 1000, failureReason: null }, tx);
    await notify.withdrawalStatusChanged({ userId: "bob", status: "COMPLETED", amountCents: 1000, failureReason: null }, tx);
    await notify.withdrawalStatusChanged({ userId: "bob", status: "FAILED", amountCents: 1000, failureReason: "Account closed" }, tx);
    expect(repository.all()).toEqual([]);

    tx.commit();
    expect(notifications()).toEqual(
      [
        ["bob", "SYSTEM", "Your withdrawal of 10.00 is being processed."],
        ["bob", "SYSTEM", "Your withdrawal of 10.00 was paid out."],
        ["bob", "ALERT", withdrawalStatusNotification("FAILED", 1000, "Account closed").content],
      ].sort(),
    );
  });
});

describe("CleanupReadNotifications", () => {
  it("deletes read notifications created before the retention period and keeps the rest", async () => {
    const clock = fixedClock("2026-06-30T00:00:00Z");
    const daysAgo = (days: number) => new Date(clock.now().getTime() - days * DAY_MS);
    await seed("alice", { read: true, createdAt: daysAgo(31) });
    const oldUnread = await seed("alice", { read: false, createdAt: daysAgo(90) });
    const recentRead = await seed("bob", { read: true, createdAt: daysAgo(29) });

    expect(await new CleanupReadNotifications(repository, 30, clock).execute()).toBe(1);
    expect(
      repository
        .all()
        .map((n) => n.id)
        .sort(),
    ).toEqual([oldUnread.id, recentRead.id].sort());
  });

  it("follows the configured retention period", async () => {
    const clock = fixedClock("2026-06-30T00:00:00Z");
    await seed("alice", { read: true, createdAt: new Date(clock.now().getTime() - 8 * DAY_MS) });
    expect(await new CleanupReadNotifications(repository, 30, clock).execute()).toBe(0);
    expect(await new CleanupReadNotifications(repository, 7, clock).execute()).toBe(1);
    expect(repository.all()).toEqual([]);
  });

  it("deletes a read notification once the clock passes its retention period, not before", async () => {
    const clock = fixedClock("2026-06-01T00:00:00Z");
    const cleanup = new CleanupReadNotifications(repository, 30, clock);
    await seed("alice", { read: true, createdAt: clock.now() });
    clock.advance(30 * DAY_MS - 1);
    expect(await cleanup.execute()).toBe(0);
    clock.advance(2);
    expect(await cleanup.execute()).toBe(1);
    expect(repository.all()).toEqual([]);
  });
});
