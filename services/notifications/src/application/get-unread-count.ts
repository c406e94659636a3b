import { requireUserId } from "@study/platform/ids";
import type { NotificationRepository } from "./ports/notification-repository.port";

export class GetUnreadCount {
  constructor(private readonly notifications: NotificationRepository) {}

  execute(userId: string): Promise<number> {
    return this.notifications.countUnread(requireUserId(userId));
  }
}
