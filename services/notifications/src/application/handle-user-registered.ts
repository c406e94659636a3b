import { createNotification, welcomeMessage } from "../domain/notification";
import { requireUserId } from "./ids";
import { newNotificationId } from "./new-notification-id";
import type { TransactionalNotificationRepository } from "./ports/notification-repository.port";

export interface UserRegistered {
  userId: string;
  name: string;
}

/** Welcomes a new user with a SYSTEM notification. */
export class HandleUserRegistered<Tx> {
  constructor(private readonly notifications: TransactionalNotificationRepository<Tx>) {}

  /**
   * Writes in `tx`, the transaction in which the consumer records the event in its inbox: a redelivered
   * event is recognised there and never reaches this handler a second time.
   */
  async execute(event: UserRegistered, tx: Tx): Promise<void> {
    const welcome = createNotification(
      newNotificationId(),
      requireUserId(event.userId),
      { type: "SYSTEM", content: welcomeMessage(event.name) },
      new Date(),
    );
    await this.notifications.forTransaction(tx).insert(welcome);
  }
}
