import { requireUserId } from "@study/platform";
import { courseDeletedMessage, createNotification, welcomeMessage } from "../domain/notification";
import { newNotificationId } from "./new-notification-id";
import type { TransactionalNotificationRepository } from "./ports/notification-repository.port";

/**
 * Turns domain events into the SYSTEM notifications they warrant. Each method writes in `tx`, the transaction
 * in which the consumer records the event in its inbox: a redelivered event is recognised there and never
 * reaches these methods a second time.
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

  private async notify(userId: string, content: string, tx: Tx): Promise<void> {
    const notification = createNotification(newNotificationId(), requireUserId(userId), { type: "SYSTEM", content }, new Date());
    await this.notifications.forTransaction(tx).insert(notification);
  }
}
