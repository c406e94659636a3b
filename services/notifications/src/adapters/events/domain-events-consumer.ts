import { consumerLinkOf, startConsumer, type ConsumerLink, type PayloadOf, type RunningConsumer } from "@study/events";
import type { NotifyOnEvent } from "../../application/notify-on-event";
import { WITHDRAWAL_STATUSES, type ProcessedReward, type WithdrawalStatus } from "../../domain/notification";
import type { Prisma } from "../../generated/prisma/client";

/** Names the service's queues (`<exchange>.notifications`) and its inbox rows. */
export const CONSUMER_NAME = "notifications";

export interface DomainEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  notifyOnEvent: NotifyOnEvent<Prisma.TransactionClient>;
}

/** Subscribes to the events that notify a user; each handler writes in the consumer's inbox transaction. */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    handlers: {
      userRegistered: (event, _envelope, tx) => options.notifyOnEvent.userRegistered(event, tx),
      courseDeleted: (event, envelope, tx) => options.notifyOnEvent.courseDeleted({ userId: envelope.userId, courseName: event.name }, tx),
      noteImportStarted: (event, envelope, tx) => options.notifyOnEvent.noteImportStarted({ userId: envelope.userId, title: event.title }, tx),
      noteTranscribed: (event, envelope, tx) => options.notifyOnEvent.noteTranscribed({ userId: envelope.userId, title: event.title }, tx),
      noteImportFailed: (event, envelope, tx) =>
        options.notifyOnEvent.noteImportFailed({ userId: envelope.userId, title: event.title, errorMessage: event.errorMessage }, tx),
      documentUploaded: (event, envelope, tx) => options.notifyOnEvent.documentUploaded({ userId: envelope.userId, title: event.title }, tx),
      documentProcessed: (event, envelope, tx) =>
        options.notifyOnEvent.documentProcessed(
          {
            userId: envelope.userId,
            title: event.title,
            documentType: event.documentType,
            calendarEventsCreated: event.calendarEventsCreated ?? null,
          },
          tx,
        ),
      documentFailed: (event, envelope, tx) =>
        options.notifyOnEvent.documentFailed({ userId: envelope.userId, title: event.title, errorMessage: event.errorMessage }, tx),
      syllabusFailed: (event, envelope, tx) =>
        options.notifyOnEvent.syllabusFailed({ userId: envelope.userId, fileName: event.fileName, errorMessage: event.errorMessage }, tx),
      calendarReminderDue: (event, envelope, tx) =>
        options.notifyOnEvent.calendarReminderDue(
          // A reminder always carries its start: one without is malformed (retried, then dead-lettered).
          { userId: envelope.userId, title: event.title, startDate: requireStart(event.startDate), location: event.location ?? null },
          tx,
        ),
      referralCodeUsed: (event, envelope, tx) =>
        options.notifyOnEvent.referralCodeUsed({ referrerId: envelope.userId, refereeName: event.refereeName }, tx),
      referralTrialStarted: (event, _envelope, tx) => options.notifyOnEvent.referralTrialStarted(event, tx),
      rewardProcessed: (event, envelope, tx) =>
        options.notifyOnEvent.rewardProcessed({ userId: envelope.userId, reward: processedReward(event) }, tx),
      withdrawalStatusChanged: (event, envelope, tx) =>
        options.notifyOnEvent.withdrawalStatusChanged(
          {
            userId: envelope.userId,
            status: requireWithdrawalStatus(event.status),
            amountCents: event.amountCents,
            failureReason: event.failureReason ?? null,
          },
          tx,
        ),
    },
  });
}

// An unknown reward type or withdrawal status is malformed (retried, then dead-lettered), never a wrong text.
function processedReward(event: PayloadOf<"rewardProcessed">): ProcessedReward {
  if (event.rewardType === "CASH") {
    return { type: "CASH", amountCents: event.cashAmountCents, accountCreditCents: event.accountCreditCents };
  }
  if (event.rewardType === "FREE_MONTH") return { type: "FREE_MONTH", extendedUntil: event.extendedUntil ?? null };
  throw new Error(`reward processed with an unknown reward type "${event.rewardType}"`);
}

function requireWithdrawalStatus(status: string): WithdrawalStatus {
  const known = WITHDRAWAL_STATUSES.find((candidate) => candidate === status);
  if (known === undefined) throw new Error(`withdrawal status changed to an unknown status "${status}"`);
  return known;
}

function requireStart(startDate: Date | undefined): Date {
  if (startDate === undefined) throw new Error("calendar reminder without a start date");
  return startDate;
}
