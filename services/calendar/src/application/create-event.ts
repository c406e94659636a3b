import { newId } from "@study/grpc/ids";
import { requireUserId } from "@study/platform/ids";
import { createCalendarEvent, type CalendarEvent, type EventInput } from "../domain/calendar-event";
import { calendarEventCreated } from "./calendar-events";
import type { CalendarEventRepository } from "./ports/calendar-event-repository.port";
import type { CourseDirectory } from "./ports/course-directory.port";

export class CreateEvent {
  constructor(
    private readonly events: CalendarEventRepository,
    private readonly courses: CourseDirectory,
  ) {}

  /** Stores a new event; a course of another user (or none) is NOT_FOUND, as the courses service answers. */
  async execute(userId: string, input: EventInput): Promise<CalendarEvent> {
    const event = createCalendarEvent(newId(), requireUserId(userId), input, new Date());
    if (event.courseId !== null) await this.courses.assertOwned(userId, event.courseId);
    await this.events.insert(event, [calendarEventCreated(event)]);
    return event;
  }
}
