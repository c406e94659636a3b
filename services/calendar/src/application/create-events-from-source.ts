import { newId } from "@study/grpc/ids";
import { requireUserId } from "@study/platform/ids";
import { createSourceEvents, type SourceItem } from "../domain/calendar-event";
import { calendarEventCreated } from "./calendar-events";
import type { CalendarEventRepository } from "./ports/calendar-event-repository.port";
import type { CourseDirectory } from "./ports/course-directory.port";

export interface SourceEventsResult {
  /** Events created by this call. */
  created: number;
  /** Items whose key had an event already (left unchanged). */
  existing: number;
}

/**
 * The events of an outside source (a syllabus), each made once per user and key: calling again with the same
 * items, or twice at once, creates nothing more. Only the events created are announced (and so indexed and pushed
 * to Google, as CreateEvent's).
 */
export class CreateEventsFromSource {
  constructor(
    private readonly events: CalendarEventRepository,
    private readonly courses: CourseDirectory,
  ) {}

  /** Every item is checked before anything is stored; a course of another user (or none) is NOT_FOUND, as CreateEvent's. */
  async execute(userId: string, courseId: string | null, items: SourceItem[]): Promise<SourceEventsResult> {
    const owner = requireUserId(userId);
    const { courseId: course, sourced } = createSourceEvents(owner, courseId, items, newId, new Date());
    if (course !== null) await this.courses.assertOwned(owner, course);
    if (sourced.length === 0) return { created: 0, existing: 0 };
    const created = await this.events.insertFromSource(sourced, (event) => [calendarEventCreated(event)]);
    return { created: created.length, existing: sourced.length - created.length };
  }
}
