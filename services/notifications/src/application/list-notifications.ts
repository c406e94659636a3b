import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import type { Notification } from "../domain/notification";
import type { NotificationRepository } from "./ports/notification-repository.port";

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 100;

export interface NotificationList {
  /** Newest first. */
  notifications: Notification[];
  /** The user's unread notifications, whatever the filter. */
  unreadCount: number;
  /** Notifications matching the filter, before the limit. */
  total: number;
}

export class ListNotifications {
  constructor(private readonly notifications: NotificationRepository) {}

  /** `includeRead: false` lists unread notifications only. */
  async execute(userId: string, query: { limit?: number; includeRead?: boolean }): Promise<NotificationList> {
    requireUserId(userId);
    const limit = query.limit ?? DEFAULT_LIST_LIMIT;
    const includeRead = query.includeRead ?? true;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw AppError.validation("Invalid limit", [{ field: "limit", message: `must be between 1 and ${MAX_LIST_LIMIT}` }]);
    }
    const [page, unreadCount] = await Promise.all([
      this.notifications.listOwned(userId, { limit, includeRead }),
      this.notifications.countUnread(userId),
    ]);
    return { ...page, unreadCount };
  }
}
