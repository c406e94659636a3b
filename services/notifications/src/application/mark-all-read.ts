import { requireUserId } from "@study/platform/ids";
import type { NotificationRepository } from "./ports/notification-repository.port";

export class MarkAllRead {
  constructor(private readonly notifications: NotificationRepository) {}

  /** Returns how many of the user's notifications went from unread to read. */
  execute(userId: string): Promise<number> {
    return this.notifications.markAllRead(requireUserId(userId), new Date());
  }
}
