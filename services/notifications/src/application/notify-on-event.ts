import { requireUserId } from "@study/platform/ids";
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
  type NotificationType,
  type ProcessedReward,
  type WithdrawalStatus,
} from "../domain/notification";
import { newId } from "@study/grpc/ids";
import type { TransactionalNotificationRepository } from "./ports/notification-repository.port";

/** The documents service's documentType of a syllabus. */
const SYLLABUS = "SYLLABUS";

/**
 * Turns domain events into the notifications they warrant (SYSTEM; ALERT for failures, a failed withdrawal too;
 * REMINDER for calendar events). Each method writes in `tx`, the transaction in which the consumer records the event in its inbox: a
 * redelivered event is recognised there and never reaches these methods a second time.
 */
export class NotifyOnEvent<Tx> {
  constructor(private readonly notifications: TransactionalNotificationRepository<Tx>) {}

  /** Welcomes a new user. */
  userRegistered(event: { userId: string; name: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, welcomeMessage(event.name), tx);
  }

  /** Confirms a course deletion to the course's owner (its notes and materials go in the background). */
  courseDeleted(event: { userId: string; courseName: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, courseDeletedMessage(event.courseName), tx);
  }

  /** Tells the user that the processing of an imported lecture started. */
  noteImportStarted(event: { userId: string; title: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, importStartedMessage(event.title), tx);
  }

  /** Tells the user that an imported lecture is transcribed and ready to view. */
  noteTranscribed(event: { userId: string; title: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, noteReadyMessage(event.title), tx);
  }

  /** Alerts the user that processing an imported lecture failed, with the error text. */
  noteImportFailed(event: { userId: string; title: string; errorMessage: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, importFailedMessage(event.title, event.errorMessage), tx, "ALERT");
  }

  /** Reminds the user of a calendar event about to start (REMINDER); the calendar sends one per event and start. */
  calendarReminderDue(event: { userId: string; title: string; startDate: Date; location: string | null }, tx: Tx): Promise<void> {
    return this.notify(event.userId, reminderMessage(event.title, event.startDate, event.location), tx, "REMINDER");
  }

  /** Tells the user that an uploaded document is being processed (its text extracted). */
  documentUploaded(event: { userId: string; title: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, documentProcessingStartedMessage(event.title), tx);
  }

  /**
   * Tells the user that a document was processed and indexed; for a syllabus, that it was processed with the
   * number of calendar events made from it, and, when there are some, that they were created for the course.
   */
  async documentProcessed(
    event: { userId: string; title: string; documentType: string; calendarEventsCreated: number | null },
    tx: Tx,
  ): Promise<void> {
    if (event.documentType !== SYLLABUS) return this.notify(event.userId, documentProcessedMessage(event.title), tx);
    const created = event.calendarEventsCreated ?? 0;
    await this.notify(event.userId, syllabusProcessedMessage(event.title, created), tx);
    if (created > 0) await this.notify(event.userId, syllabusEventsCreatedMessage(event.title, created), tx);
  }

  /** Alerts the user that processing a document failed, with the error text. */
  documentFailed(event: { userId: string; title: string; errorMessage: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, documentFailedMessage(event.title, event.errorMessage), tx, "ALERT");
  }

  /** Alerts the user that a syllabus upload could not be processed, with the error text. */
  syllabusFailed(event: { userId: string; fileName: string; errorMessage: string }, tx: Tx): Promise<void> {
    return this.notify(event.userId, syllabusFailedMessage(event.fileName, event.errorMessage), tx, "ALERT");
  }

  /** Tells a referrer that someone signed up with their code (by the referee's shortened name only). */
  referralCodeUsed(event: { referrerId: string; refereeName: string }, tx: Tx): Promise<void> {
    return this.notify(event.referrerId, referralCodeUsedMessage(event.refereeName), tx);
  }

  /** Tells both users of a referral that the referee started a trial: the referrer's cash, the referee's free months. */
  async referralTrialStarted(
    event: {
      referrerId: string;
      refereeId: string;
      referrerName: string;
      refereeName: string;
      referrerCashCents: number;
      refereeFreeMonths: number;
    },
    tx: Tx,
  ): Promise<void> {
    await this.notify(event.referrerId, referralTrialStartedReferrerMessage(event.refereeName, event.referrerCashCents), tx);
    await this.notify(event.refereeId, referralTrialStartedRefereeMessage(event.referrerName, event.refereeFreeMonths), tx);
  }

  /** Confirms a processed reward to its recipient: the credit added, or the subscription's extension. */
  rewardProcessed(event: { userId: string; reward: ProcessedReward }, tx: Tx): Promise<void> {
    return this.notify(event.userId, rewardProcessedMessage(event.reward), tx);
  }

  /** Tells the user of a withdrawal's new status; a failed withdrawal is an ALERT with its reason. */
  withdrawalStatusChanged(
    event: { userId: string; status: WithdrawalStatus; amountCents: number; failureReason: string | null },
    tx: Tx,
  ): Promise<void> {
    const { type, content } = withdrawalStatusNotification(event.status, event.amountCents, event.failureReason);
    return this.notify(event.userId, content, tx, type);
  }

  private async notify(userId: string, content: string, tx: Tx, type: NotificationType = "SYSTEM"): Promise<void> {
    const notification = createNotification(newId(), requireUserId(userId), { type, content }, new Date());
    await this.notifications.forTransaction(tx).insert(notification);
  }
}
