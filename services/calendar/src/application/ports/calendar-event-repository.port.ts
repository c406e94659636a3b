import type { EventEnvelope } from "@study/events/envelope";
import type { CalendarEvent, EventType, SourcedEvent } from "../../domain/calendar-event";

export interface EventListQuery {
  limit: number;
  offset: number;
  /** Events starting at or after this instant. */
  startsFrom?: Date;
  /** Events ending (or, without an end, starting) before this instant. */
  endsBefore?: Date;
  eventType?: EventType;
  courseId?: string;
}

export interface CalendarEventPage {
  /** Ascending by start, then by id. */
  events: CalendarEvent[];
  /** Events matching the filters, before the page. */
  total: number;
}

/**
 * Persistence of calendar events. Every write takes the events it causes: the adapter stores them in the
 * outbox in the same transaction as the change.
 */
export interface CalendarEventRepository {
  insert(event: CalendarEvent, events: EventEnvelope[]): Promise<void>;
  /**
   * Inserts, in one transaction, the events whose (userId, sourceKey) is new, with the events `events` builds from
   * each one inserted; a key that exists (stored earlier, or by a concurrent call that committed first) leaves its
   * event as it is and announces nothing. Returns the events inserted.
   */
  insertFromSource(sourced: SourcedEvent[], events: (created: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent[]>;
  /** The event if it exists and belongs to the user. */
  findOwned(userId: string, eventId: string): Promise<CalendarEvent | null>;
  listOwned(userId: string, query: EventListQuery): Promise<CalendarEventPage>;
  /**
   * Stores the changed event with a new updatedAt (the event's, or just after the stored one if that is not
   * older, so that concurrent changes keep their order) and the events `events` builds from the event as
   * stored. Returns the stored event; null when the user's event no longer exists.
   */
  update(event: CalendarEvent, events: (saved: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent | null>;
  /**
   * Deletes the user's event with the events `events` builds from it as it was deleted (its Google link may have
   * been stored since it was read); null when there was none.
   */
  deleteOwned(userId: string, eventId: string, events: (deleted: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent | null>;
  /**
   * Stores `detach(event)` for every event of the user's course, each with the events `events` builds from it;
   * returns the stored events.
   */
  detachCourse(
    userId: string,
    courseId: string,
    detach: (event: CalendarEvent) => CalendarEvent,
    events: (saved: CalendarEvent) => EventEnvelope[],
  ): Promise<CalendarEvent[]>;
  /** Up to `limit` events (of one user, or of all when userId is absent) with ids after `afterId`, in id order. */
  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<CalendarEvent[]>;
}

/**
 * A repository that can also work inside a transaction someone else opened: the course-deletion consumer
 * detaches the course's events in the transaction that records the event in its inbox, so both commit or
 * neither does. `Tx` is the adapter's transaction client; the application only passes it through.
 */
export interface TransactionalCalendarEventRepository<Tx> extends CalendarEventRepository {
  forTransaction(tx: Tx): Pick<CalendarEventRepository, "detachCourse">;
}
