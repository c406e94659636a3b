import { randomUUID } from "node:crypto";
import { notifications as api } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher } from "@study/events";
import { createClient } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { createTestDatabase, eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import type { NotificationsConfig } from "../../src/config";
import {
  courseDeletedMessage,
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
} from "../../src/domain/notification";
import type { PrismaClient } from "../../src/generated/prisma/client";
import { notificationsService } from "../../src/service";

const { NotificationType } = api;
const DAY_MS = 24 * 60 * 60 * 1000;

describe("notifications service over gRPC, with PostgreSQL and RabbitMQ", () => {
  let service: Awaited<ReturnType<typeof startService<PrismaClient, NotificationsConfig>>>;
  let client: ReturnType<typeof createClient<api.NotificationsServiceClient>>;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("notifications", migrationSources(notificationsService));
    const exchange = `test.${uniqueSuffix()}`;
    service = await startService(notificationsService, {
      handleSignals: false,
      env: {
        DATABASE_URL: databaseUrl,
        RABBITMQ_URL: testRabbitMqUrl(),
        GRPC_PORT: "0",
        EVENT_EXCHANGE: exchange,
        LOG_LEVEL: "silent",
        // Every second, so the test sees the scheduled cleanup run.
        NOTIFICATION_CLEANUP_CRON: "* * * * * *",
      },
    });
    client = createClient(api.NotificationsServiceClient, api.NotificationsServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);
  });

  afterAll(async () => {
    client.close();
    await publisherConnection.close();
    await service.lifecycle.stop();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code, details: error.details }),
    );
  const notFound = { kind: "not_found", code: "NOT_FOUND" };
  const user = () => `user-${uniqueSuffix()}`;
  const notify = (userId: string, content: string, type = NotificationType.NOTIFICATION_TYPE_REMINDER) =>
    client.createNotification({ userId, type, content }).then((response) => response.notification!);

  it("creates and lists notifications newest first, with total and unread count", async () => {
    const userId = user();
    const first = await notify(userId, "Essay due Friday", NotificationType.NOTIFICATION_TYPE_ALERT);
    const second = await notify(userId, "Study group at 6");
    const third = await notify(userId, "  New message from Ada  ", NotificationType.NOTIFICATION_TYPE_MESSAGE);
    expect(third).toMatchObject({ userId, type: NotificationType.NOTIFICATION_TYPE_MESSAGE, content: "New message from Ada", read: false });
    expect(third.createdAt).toBeInstanceOf(Date);

    const all = await client.listNotifications({ userId, limit: 0, includeRead: true });
    expect(all.notifications.map((n) => n.id)).toEqual([third.id, second.id, first.id]);
    expect(all).toMatchObject({ unreadCount: 3, total: 3 });

    await client.markNotificationRead({ userId, notificationId: second.id });
    const unreadOnly = await client.listNotifications({ userId, limit: 0, includeRead: false });
    expect(unreadOnly.notifications.map((n) => n.id)).toEqual([third.id, first.id]);
    expect(unreadOnly).toMatchObject({ unreadCount: 2, total: 2 });

    const limited = await client.listNotifications({ userId, limit: 1, includeRead: true });
    expect(limited.notifications.map((n) => n.id)).toEqual([third.id]);
    expect(limited).toMatchObject({ unreadCount: 2, total: 3 });
    expect(await client.getUnreadCount({ userId })).toEqual({ unreadCount: 2 });

    expect((await client.listNotifications({ userId: user(), limit: 10, includeRead: true })).notifications).toEqual([]);
  });

  it("rejects a limit above 100 and a missing type or blank content with field details", async () => {
    expect(await refusal(client.listNotifications({ userId: user(), limit: 101, includeRead: true }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "limit", message: "must be between 1 and 100" }],
    });
    expect(await refusal(client.createNotification({ userId: user(), type: NotificationType.NOTIFICATION_TYPE_UNSPECIFIED, content: " " }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "type", message: "must be one of SYSTEM, REMINDER, ALERT, MESSAGE" },
        { field: "content", message: "must not be empty" },
      ],
    });
  });

  it("marks a notification read, idempotently, and answers NOT_FOUND for foreign, unknown and malformed ids", async () => {
    const userId = user();
    const notification = await notify(userId, "Flashcards ready");
    const { notification: read } = await client.markNotificationRead({ userId, notificationId: notification.id });
    expect(read).toMatchObject({ id: notification.id, read: true });

    const { notification: again } = await client.markNotificationRead({ userId, notificationId: notification.id });
    expect(again).toEqual(read);

    const unread = await notify(userId, "Still unread");
    expect(await refusal(client.markNotificationRead({ userId: user(), notificationId: unread.id }))).toMatchObject(notFound);
    expect(await refusal(client.markNotificationRead({ userId, notificationId: randomUUID() }))).toMatchObject(notFound);
    expect(await refusal(client.markNotificationRead({ userId, notificationId: "not-a-uuid" }))).toMatchObject(notFound);
    expect(await client.getUnreadCount({ userId })).toEqual({ unreadCount: 1 });
  });

  it("marks all unread notifications read and reports how many changed", async () => {
    const userId = user();
    const bystander = user();
    await notify(userId, "One");
    const alreadyRead = await notify(userId, "Two");
    await notify(userId, "Three");
    await notify(bystander, "Not yours");
    await client.markNotificationRead({ userId, notificationId: alreadyRead.id });

    expect(await client.markAllNotificationsRead({ userId })).toEqual({ markedCount: 2 });
    expect(await client.getUnreadCount({ userId })).toEqual({ unreadCount: 0 });
    expect(await client.markAllNotificationsRead({ userId })).toEqual({ markedCount: 0 });
    expect(await client.getUnreadCount({ userId: bystander })).toEqual({ unreadCount: 1 });
  });

  it("returns the first notification when a create is repeated with the same idempotency key", async () => {
    const userId = user();
    const request = { userId, type: NotificationType.NOTIFICATION_TYPE_SYSTEM, content: "Your export is ready", idempotencyKey: "export-7" };
    const [a, b] = await Promise.all([client.createNotification(request), client.createNotification(request)]);
    const c = await client.createNotification({ ...request, content: "A different text" });
    expect(b.notification).toEqual(a.notification);
    expect(c.notification).toEqual(a.notification);
    expect((await client.listNotifications({ userId, limit: 10, includeRead: true })).total).toBe(1);
  });

  it("deletes read notifications past the 30-day retention on schedule, and nothing else", async () => {
    const userId = user();
    const row = (read: boolean, ageDays: number) => {
      const at = new Date(Date.now() - ageDays * DAY_MS);
      return {
        id: randomUUID(),
        userId,
        type: "REMINDER" as const,
        content: `read=${read}, ${ageDays} days old`,
        read,
        createdAt: at,
        updatedAt: at,
      };
    };
    const oldRead = row(true, 31);
    const oldUnread = row(false, 45);
    const recentRead = row(true, 29);
    await service.db.notification.createMany({ data: [oldRead, oldUnread, recentRead] });

    await eventually(async () => (await service.db.notification.findUnique({ where: { id: oldRead.id } })) === null);
    const remaining = await service.db.notification.findMany({ where: { userId }, select: { id: true } });
    expect(remaining.map((n) => n.id).sort()).toEqual([oldUnread.id, recentRead.id].sort());
  });

  it("welcomes a registered user once, even when the event is delivered again", async () => {
    const userId = user();
    const registered = createEvent("gateway", userId, { $case: "userRegistered", value: { userId, name: "Ada", email: "ada@example.com" } });
    await publisher.publish([registered]);

    const welcome = await eventually(async () => (await client.listNotifications({ userId, limit: 10, includeRead: true })).notifications[0]);
    expect(welcome).toMatchObject({ userId, type: NotificationType.NOTIFICATION_TYPE_SYSTEM, content: welcomeMessage("Ada"), read: false });

    // The same envelope (same event id) again, then another user's registration: once the latter is
    // handled, the duplicate queued before it has been handled too.
    await publisher.publish([registered]);
    const laterUserId = user();
    await publisher.publish([
      createEvent("gateway", laterUserId, { $case: "userRegistered", value: { userId: laterUserId, name: "Grace", email: "grace@example.com" } }),
    ]);
    await eventually(async () => (await client.getUnreadCount({ userId: laterUserId })).unreadCount === 1);

    const list = await client.listNotifications({ userId, limit: 10, includeRead: true });
    expect(list.notifications.map((n) => n.id)).toEqual([welcome.id]);
  });

  it("confirms a course deletion to the course's owner", async () => {
    const userId = user();
    await publisher.publish([createEvent("courses", userId, { $case: "courseDeleted", value: { courseId: "c-1", name: "Organic Chemistry" } })]);
    const confirmation = await eventually(async () => (await client.listNotifications({ userId, limit: 10, includeRead: true })).notifications[0]);
    expect(confirmation).toMatchObject({ type: NotificationType.NOTIFICATION_TYPE_SYSTEM, content: courseDeletedMessage("Organic Chemistry") });
  });

  it("tells the user when a media import starts, when its note is ready, and alerts when it fails", async () => {
    const userId = user();
    const note = { noteId: "n-1", jobId: "j-1", courseId: "c-1", title: "Lecture 4: Kinetics" };
    await publisher.publish([createEvent("media", userId, { $case: "noteImportStarted", value: { ...note, importType: "video_import" } })]);
    const started = await eventually(async () => (await client.listNotifications({ userId, limit: 10, includeRead: true })).notifications[0]);
    expect(started).toMatchObject({ type: NotificationType.NOTIFICATION_TYPE_SYSTEM, content: importStartedMessage("Lecture 4: Kinetics") });

    await publisher.publish([
      createEvent("media", userId, {
        $case: "noteTranscribed",
        value: { ...note, transcript: "Rates of reaction", summary: "Rates.", segments: [], duration: 60, language: "en" },
      }),
    ]);
    await publisher.publish([
      createEvent("media", userId, { $case: "noteImportFailed", value: { ...note, title: "Lecture 5", errorMessage: "The video is private" } }),
    ]);
    const all = await eventually(async () => {
      const list = await client.listNotifications({ userId, limit: 10, includeRead: true });
      return list.total === 3 ? list.notifications : undefined;
    });
    expect(all.map((n) => [n.type, n.content]).sort()).toEqual(
      [
        [NotificationType.NOTIFICATION_TYPE_SYSTEM, importStartedMessage("Lecture 4: Kinetics")],
        [NotificationType.NOTIFICATION_TYPE_SYSTEM, noteReadyMessage("Lecture 4: Kinetics")],
        [NotificationType.NOTIFICATION_TYPE_ALERT, importFailedMessage("Lecture 5", "The video is private")],
      ].sort(),
    );
  });

  it("tells the user when a document is being processed, processed and indexed, or failed, and of a syllabus's events", async () => {
    const userId = user();
    const document = { documentId: randomUUID(), courseId: randomUUID(), title: "Chapter 3 slides", documentType: "HANDOUT" };
    const SYSTEM = NotificationType.NOTIFICATION_TYPE_SYSTEM;
    const ALERT = NotificationType.NOTIFICATION_TYPE_ALERT;
    await publisher.publish([
      createEvent("documents", userId, { $case: "documentUploaded", value: { ...document, format: "PPTX", storageKey: "documents/k" } }),
      createEvent("documents", userId, { $case: "documentProcessed", value: { ...document, pageCount: 12, wordCount: 3400 } }),
      createEvent("documents", userId, {
        $case: "documentFailed",
        value: { ...document, documentId: randomUUID(), title: "Scan.pdf", errorMessage: "The PDF is encrypted" },
      }),
      createEvent("documents", userId, {
        $case: "documentProcessed",
        value: {
          ...document,
          documentId: randomUUID(),
          title: "BIO 101 Syllabus",
          documentType: "SYLLABUS",
          pageCount: 2,
          wordCount: 800,
          calendarEventsCreated: 14,
        },
      }),
      // The same syllabus uploaded again: nothing new in the calendar.
      createEvent("documents", userId, {
        $case: "documentProcessed",
        value: {
          ...document,
          documentId: randomUUID(),
          title: "BIO 101 Syllabus",
          documentType: "SYLLABUS",
          pageCount: 2,
          wordCount: 800,
          calendarEventsCreated: 0,
        },
      }),
      createEvent("documents", userId, {
        $case: "syllabusFailed",
        value: { courseId: document.courseId, fileName: "syllabus.docx", errorMessage: "No dates were found" },
      }),
    ]);
    const all = await eventually(async () => {
      const list = await client.listNotifications({ userId, limit: 20, includeRead: true });
      return list.total >= 7 ? list.notifications : undefined;
    });
    expect(all.map((n) => [n.type, n.content]).sort()).toEqual(
      [
        [SYSTEM, documentProcessingStartedMessage("Chapter 3 slides")],
        [SYSTEM, documentProcessedMessage("Chapter 3 slides")],
        [ALERT, documentFailedMessage("Scan.pdf", "The PDF is encrypted")],
        [SYSTEM, syllabusProcessedMessage("BIO 101 Syllabus", 14)],
        [SYSTEM, syllabusEventsCreatedMessage("BIO 101 Syllabus", 14)],
        [SYSTEM, syllabusProcessedMessage("BIO 101 Syllabus", 0)],
        [ALERT, syllabusFailedMessage("syllabus.docx", "No dates were found")],
      ].sort(),
    );
  });

  it("reminds the user of a calendar event once, even when the reminder is delivered again", async () => {
    const userId = user();
    const startDate = new Date("2026-03-02T09:00:00Z");
    const due = createEvent("calendar", userId, {
      $case: "calendarReminderDue",
      value: { eventId: randomUUID(), title: "Lecture 4", startDate, location: "Room 101", minutesBefore: 30 },
    });
    await publisher.publish([due]);
    const reminder = await eventually(async () => (await client.listNotifications({ userId, limit: 10, includeRead: true })).notifications[0]);
    expect(reminder).toMatchObject({
      userId,
      type: NotificationType.NOTIFICATION_TYPE_REMINDER,
      content: reminderMessage("Lecture 4", startDate, "Room 101"),
    });

    // The same envelope again, then a reminder of another user: once that is handled, the duplicate was too.
    await publisher.publish([due]);
    const laterUserId = user();
    await publisher.publish([
      createEvent("calendar", laterUserId, {
        $case: "calendarReminderDue",
        value: { eventId: randomUUID(), title: "Exam", startDate, minutesBefore: 60 },
      }),
    ]);
    await eventually(async () => (await client.getUnreadCount({ userId: laterUserId })).unreadCount === 1);
    const list = await client.listNotifications({ userId, limit: 10, includeRead: true });
    expect(list.notifications.map((n) => n.id)).toEqual([reminder.id]);
  });

  describe("billing events", () => {
    const SYSTEM = NotificationType.NOTIFICATION_TYPE_SYSTEM;
    const ALERT = NotificationType.NOTIFICATION_TYPE_ALERT;
    const contents = async (userId: string, count: number) => {
      const list = await eventually(async () => {
        const found = await client.listNotifications({ userId, limit: 20, includeRead: true });
        return found.total >= count ? found : undefined;
      });
      return list.notifications.map((n) => [n.type, n.content]).sort();
    };

    it("tells the referrer that their code was used, and both users that the trial started", async () => {
      const [referrerId, refereeId] = [user(), user()];
      const referral = { referralId: randomUUID(), referrerId, refereeId, refereeName: "Ada L." };
      await publisher.publish([
        createEvent("billing", referrerId, { $case: "referralCodeUsed", value: referral }),
        createEvent("billing", refereeId, {
          $case: "referralTrialStarted",
          value: { ...referral, referrerName: "Grace H.", referrerCashCents: 500, refereeFreeMonths: 1 },
        }),
      ]);

      expect(await contents(referrerId, 2)).toEqual(
        [
          [SYSTEM, referralCodeUsedMessage("Ada L.")],
          [SYSTEM, referralTrialStartedReferrerMessage("Ada L.", 500)],
        ].sort(),
      );
      expect(await contents(refereeId, 1)).toEqual([[SYSTEM, referralTrialStartedRefereeMessage("Grace H.", 1)]]);
    });

    it("confirms a processed cash reward and free month", async () => {
      const userId = user();
      const reward = { rewardId: randomUUID(), referralId: randomUUID(), cashAmountCents: 0, freeMonths: 0, accountCreditCents: 500 };
      const extendedUntil = new Date("2026-12-24T10:00:00Z");
      await publisher.publish([
        createEvent("billing", userId, { $case: "rewardProcessed", value: { ...reward, rewardType: "CASH", cashAmountCents: 500 } }),
        createEvent("billing", userId, {
          $case: "rewardProcessed",
          value: { ...reward, rewardId: randomUUID(), rewardType: "FREE_MONTH", freeMonths: 1, subscriptionExtension: "sub_1", extendedUntil },
        }),
      ]);

      expect(await contents(userId, 2)).toEqual(
        [
          [SYSTEM, rewardProcessedMessage({ type: "CASH", amountCents: 500, accountCreditCents: 500 })],
          [SYSTEM, rewardProcessedMessage({ type: "FREE_MONTH", extendedUntil })],
        ].sort(),
      );
    });

    it("tells each withdrawal status, a failure once as an ALERT even when the event is delivered again", async () => {
      const userId = user();
      const withdrawal = { withdrawalId: randomUUID(), amountCents: 1000, accountCreditCents: 0 };
      const failed = createEvent("billing", userId, {
        $case: "withdrawalStatusChanged",
        value: { ...withdrawal, status: "FAILED", failureReason: "The bank account was closed", accountCreditCents: 1000 },
      });
      await publisher.publish([
        createEvent("billing", userId, { $case: "withdrawalStatusChanged", value: { ...withdrawal, status: "PROCESSING" } }),
        createEvent("billing", userId, {
          $case: "withdrawalStatusChanged",
          value: { ...withdrawal, withdrawalId: randomUUID(), status: "COMPLETED", processorPaymentId: "po_1" },
        }),
        failed,
      ]);
      const expected = [
        [SYSTEM, "Your withdrawal of 10.00 is being processed."],
        [SYSTEM, "Your withdrawal of 10.00 was paid out."],
        [ALERT, withdrawalStatusNotification("FAILED", 1000, "The bank account was closed").content],
      ].sort();
      expect(await contents(userId, 3)).toEqual(expected);

      // The failure again (same event id), then another user's withdrawal: once that is handled, the duplicate was too.
      await publisher.publish([failed]);
      const laterUserId = user();
      await publisher.publish([
        createEvent("billing", laterUserId, { $case: "withdrawalStatusChanged", value: { ...withdrawal, status: "PROCESSING" } }),
      ]);
      await eventually(async () => (await client.getUnreadCount({ userId: laterUserId })).unreadCount === 1);
      expect(await contents(userId, 3)).toEqual(expected);
    });
  });
});
