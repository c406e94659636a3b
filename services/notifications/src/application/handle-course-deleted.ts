import { courseDeletedMessage, createNotification } from "../domain/notification";
import { requireUserId } from "./ids";
import { newNotificationId } from "./new-notification-id";
import type { TransactionalNotificationRepository } from "./ports/notification-repository.port";

export interface CourseDeleted {
  userId: string;
  courseName: string;
}

/** Confirms a course deletion to its owner with a SYSTEM notification (written in the inbox transaction). */
export class HandleCourseDeleted<Tx> {
  constructor(private readonly notifications: TransactionalNotificationRepository<Tx>) {}

  async execute(event: CourseDeleted, tx: Tx): Promise<void> {
    const confirmation = createNotification(
      newNotificationId(),
      requireUserId(event.userId),
      { type: "SYSTEM", content: courseDeletedMessage(event.courseName) },
      new Date(),
    );
    await this.notifications.forTransaction(tx).insert(confirmation);
  }
}
