import { isUuid, requireUserId } from "@study/platform/ids";
import { detachFromCourse, type CalendarEvent } from "../domain/calendar-event";
import { calendarEventUpdated } from "./calendar-events";
import type { CalendarEventRepository, TransactionalCalendarEventRepository } from "./ports/calendar-event-repository.port";

/**
 * A course was deleted (courses.course.deleted.v1): its events stay, without the course, and each is announced
 * as updated so that search drops the course from it. Runs in `tx`, the transaction in which the consumer records
 * the event in its inbox: a redelivered event is recognised there and never detaches twice.
 */
export class DetachCourse<Tx> {
  constructor(private readonly events: TransactionalCalendarEventRepository<Tx>) {}

  /** Returns the detached events. */
  execute(userId: string, courseId: string, tx: Tx): Promise<CalendarEvent[]> {
    requireUserId(userId);
    if (!isUuid(courseId)) return Promise.resolve([]);
    const repository: Pick<CalendarEventRepository, "detachCourse"> = this.events.forTransaction(tx);
    const now = new Date();
    return repository.detachCourse(
      userId,
      courseId,
      (event) => detachFromCourse(event, now),
      (saved) => [calendarEventUpdated(saved)],
    );
  }
}
