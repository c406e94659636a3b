import ical, { ICalAlarmType, ICalCalendarMethod } from "ical-generator";
import type { FeedCalendar, FeedRenderer } from "../../application/ports/feed.port";
import type { CalendarEvent, EventPriority } from "../../domain/calendar-event";

/** UIDs are `<event id>@` this: stable across renders, so subscribed calendars update events instead of duplicating. */
export const FEED_UID_DOMAIN = "calendar.study-service";
/** RFC 5545 PRIORITY: 1 highest, 5 normal, 9 lowest. */
export const ICAL_PRIORITY: Record<EventPriority, number> = { HIGH: 1, MEDIUM: 5, LOW: 9 };
const DAY_MS = 24 * 60 * 60 * 1000;

/** An all-day event as DATE values: its day, to the day after its end date (DTEND is exclusive), at least one day. */
function allDayRange(event: CalendarEvent, day: string): { start: Date; end: Date } {
  const start = new Date(`${day}T00:00:00.000Z`);
  const end = event.endDate && event.endDate.getTime() > start.getTime() ? event.endDate : new Date(start.getTime() + DAY_MS);
  return { start, end };
}

export class IcalFeedRenderer implements FeedRenderer {
  render(feed: FeedCalendar): string {
    const calendar = ical({
      name: feed.name,
      prodId: { company: "Study Service", product: "Calendar feed", language: "EN" },
      method: ICalCalendarMethod.PUBLISH,
      // Instants are UTC in the document; subscribers show them in their own zone.
      timezone: null,
      ttl: 60 * 60,
    });
    for (const event of feed.events) {
      const range = event.allDayDate ? allDayRange(event, event.allDayDate) : { start: event.startDate, end: event.endDate ?? event.startDate };
      calendar.createEvent({
        id: `${event.id}@${FEED_UID_DOMAIN}`,
        start: range.start,
        end: range.end,
        allDay: event.allDayDate !== null,
        summary: event.title,
        description: event.description,
        location: event.location,
        categories: [{ name: event.eventType }],
        priority: ICAL_PRIORITY[event.priority],
        created: event.createdAt,
        lastModified: event.updatedAt,
        // DTSTAMP of a published calendar is the last revision, so an unchanged event renders identically.
        stamp: event.updatedAt,
        alarms: event.reminderMinutes > 0 ? [{ type: ICalAlarmType.display, trigger: event.reminderMinutes * 60, description: event.title }] : [],
      });
    }
    return calendar.toString();
  }
}
