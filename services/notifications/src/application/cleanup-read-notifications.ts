import { retentionCutoff } from "../domain/notification";
import type { NotificationRepository } from "./ports/notification-repository.port";

export class CleanupReadNotifications {
  constructor(
    private readonly notifications: NotificationRepository,
    private readonly retentionDays: number,
  ) {}

  /** Deletes the read notifications past the retention period; returns how many were deleted. */
  execute(now = new Date()): Promise<number> {
    return this.notifications.deleteReadCreatedBefore(retentionCutoff(now, this.retentionDays));
  }
}
