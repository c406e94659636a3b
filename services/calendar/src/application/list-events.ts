import { AppError, type FieldViolation } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { EVENT_TYPES, type EventType } from "../domain/calendar-event";
import type { CalendarEventPage, CalendarEventRepository } from "./ports/calendar-event-repository.port";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export interface ListEventsQuery {
  limit?: number;
  offset?: number;
  startsFrom?: Date;
  endsBefore?: Date;
  eventType?: EventType;
  courseId?: string;
}

export class ListEvents {
  constructor(private readonly events: Pick<CalendarEventRepository, "listOwned">) {}

  /** The user's events matching every given filter, ascending by start then id, with their total. */
  async execute(userId: string, query: ListEventsQuery): Promise<CalendarEventPage & { limit: number; offset: number }> {
    requireUserId(userId);
    // proto3 sends an unset limit as 0: the default page size.
    const limit = query.limit || DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const violations: FieldViolation[] = [];
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
      violations.push({ field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` });
    if (!Number.isInteger(offset) || offset < 0) violations.push({ field: "offset", message: "must be 0 or more" });
    for (const field of ["startsFrom", "endsBefore"] as const) {
      const date = query[field];
      if (date !== undefined && Number.isNaN(date.getTime())) violations.push({ field, message: "must be a valid date" });
    }
    if (query.eventType !== undefined && !EVENT_TYPES.includes(query.eventType)) {
      violations.push({ field: "eventType", message: `must be one of ${EVENT_TYPES.join(", ")}` });
    }
    if (query.courseId !== undefined && !isUuid(query.courseId)) violations.push({ field: "courseId", message: "must be a course id (UUID)" });
    if (violations.length > 0) throw AppError.validation("Invalid list query", violations);
    const { startsFrom, endsBefore, eventType, courseId } = query;
    const page = await this.events.listOwned(userId, { limit, offset, startsFrom, endsBefore, eventType, courseId });
    return { ...page, limit, offset };
  }
}
