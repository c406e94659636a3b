import type { Notification } from "../../domain/notification";

export interface NotificationPage {
  /** Newest first, at most the requested limit. */
  notifications: Notification[];
  /** Notifications matching the filter, before the limit. */
  total: number;
}

/** Persistence of notifications. */
export interface NotificationRepository {
  insert(notification: Notification): Promise<void>;
  /**
   * Inserts the notification unless the user already has one stored under the key; returns the stored one
   * either way, so a retried create yields the first notification.
   */
  insertOnce(notification: Notification, idempotencyKey: string): Promise<Notification>;
  /** The notification if it exists and belongs to the user. */
  findOwned(userId: string, notificationId: string): Promise<Notification | null>;
  listOwned(userId: string, query: { limit: number; includeRead: boolean }): Promise<NotificationPage>;
  countUnread(userId: string): Promise<number>;
  /** Stores the read state (read flag and updatedAt) of the user's notification. */
  saveReadState(notification: Notification): Promise<void>;
  /** Marks every unread notification of the user read at `at`; returns how many changed. */
  markAllRead(userId: string, at: Date): Promise<number>;
  /** Deletes every read notification created before the cutoff; returns how many were deleted. */
  deleteReadCreatedBefore(cutoff: Date): Promise<number>;
}

/**
 * A repository that can also work inside a transaction someone else opened: the event consumer writes a
 * handler's effects in the transaction that records the event in its inbox, so both commit or neither does.
 * `Tx` is the adapter's transaction client; the application only passes it through.
 */
export interface TransactionalNotificationRepository<Tx> extends NotificationRepository {
  forTransaction(tx: Tx): NotificationRepository;
}
