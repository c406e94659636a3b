import { applyEventChanges, type CalendarEvent, type EventChanges } from "../domain/calendar-event";
import { calendarEventUpdated } from "./calendar-events";
import { eventNotFound, type GetEvent } from "./get-event";
import type { CalendarEventRepository } from "./ports/calendar-event-repository.port";
import type { CourseDirectory } from "./ports/course-directory.port";

export class UpdateEvent {
  constructor(
    private readonly events: CalendarEventRepository,
    private readonly getEvent: GetEvent,
    private readonly courses: CourseDirectory,
  ) {}

  /** Sets any subset of the fields and clears the named ones; the result must keep every rule. */
  async execute(userId: string, eventId: string, changes: EventChanges): Promise<CalendarEvent> {
    const current = await this.getEvent.execute(userId, eventId);
    const changed = applyEventChanges(current, changes, new Date());
    if (changed.courseId !== null && changed.courseId !== current.courseId) await this.courses.assertOwned(userId, changed.courseId);
    const saved = await this.events.update(changed, (event) => [calendarEventUpdated(event)]);
    // Deleted concurrently between the read and the write: same answer as never having existed.
    if (!saved) throw eventNotFound();
    return saved;
  }
}
