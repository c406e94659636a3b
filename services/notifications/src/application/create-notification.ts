import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { createNotification, type Notification, type NotificationDraft } from "../domain/notification";
import { newId } from "@study/grpc/ids";
import type { NotificationRepository } from "./ports/notification-repository.port";

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export class CreateNotification {
  constructor(private readonly notifications: NotificationRepository) {}

  /** With an idempotency key, a repeat returns the notification the first call created (and creates none). */
  async execute(userId: string, draft: NotificationDraft, idempotencyKey?: string): Promise<Notification> {
    const notification = createNotification(newId(), requireUserId(userId), draft, new Date());
    if (idempotencyKey === undefined) {
      await this.notifications.insert(notification);
      return notification;
    }
    if (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
      throw AppError.validation("Invalid idempotency key", [
        { field: "idempotencyKey", message: `must be 1-${MAX_IDEMPOTENCY_KEY_LENGTH} characters when given` },
      ]);
    }
    return this.notifications.insertOnce(notification, idempotencyKey);
  }
}
