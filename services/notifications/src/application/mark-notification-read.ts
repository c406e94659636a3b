import { AppError } from "@study/platform/errors";
import { isUuid as isNotificationId, requireUserId } from "@study/platform/ids";
import { markAsRead, type Notification } from "../domain/notification";
import type { NotificationRepository } from "./ports/notification-repository.port";

export class MarkNotificationRead {
  constructor(private readonly notifications: NotificationRepository) {}

  /**
   * Marks the user's notification read; marking it again succeeds without a change. Another user's
   * notification, an unknown id and a malformed id are NOT_FOUND alike.
   */
  async execute(userId: string, notificationId: string): Promise<Notification> {
    requireUserId(userId);
    const notification = isNotificationId(notificationId) ? await this.notifications.findOwned(userId, notificationId) : null;
    if (!notification) throw AppError.notFound("Notification");
    if (notification.read) return notification;
    const read = markAsRead(notification, new Date());
    await this.notifications.saveReadState(read);
    return read;
  }
}
