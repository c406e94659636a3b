import { systemClock, type Clock } from "@study/platform/clock";
import { retentionCutoff } from "../domain/notification";
import type { NotificationRepository } from "./ports/notification-repository.port";

export class CleanupReadNotifications {
  constructor(
    private readonly notifications: NotificationRepository,
    private readonly retentionDays: number,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Deletes the read notifications past the retention period; returns how many were deleted. */
  execute(): Promise<number> {
    return this.notifications.deleteReadCreatedBefore(retentionCutoff(this.clock.now(), this.retentionDays));
  }
}
