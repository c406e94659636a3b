import type { PayloadOf } from "@study/events/envelope";
import type { CalendarEvent } from "../domain/calendar-event";

/** The indexing contract's record (study.search.v1.Searchable), as the events and SearchableSourceService carry it. */
export type Searchable = NonNullable<PayloadOf<"calendarEventCreated">["searchable"]>;

/**
 * study.search.v1.SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT. Use cases may not import @study/contracts (see
 * .dependency-cruiser.cjs), so this is the enum's wire number, which proto never changes: the type accepts only
 * numbers of the enum, and test/unit/searchable.test.ts pins this one to its name.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_CALENDAR_EVENT: Searchable["type"] = 7;

/**
 * A calendar event as search indexes it (the one builder of the events and SearchableSourceService): the title;
 * location and type as keywords; the description as content; start, end, type, priority and location as facts.
 */
export function toSearchable(event: CalendarEvent): Searchable {
  const metadata: Record<string, string> = { startDate: event.startDate.toISOString() };
  if (event.endDate !== null) metadata.endDate = event.endDate.toISOString();
  metadata.eventType = event.eventType;
  metadata.priority = event.priority;
  if (event.location !== null) metadata.location = event.location;
  return {
    type: SEARCHABLE_TYPE_CALENDAR_EVENT,
    id: event.id,
    userId: event.userId,
    courseId: event.courseId ?? undefined,
    title: event.title,
    keywords: [event.location, event.eventType].filter((keyword): keyword is string => keyword !== null),
    description: "",
    content: event.description ?? "",
    metadata,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
  };
}
