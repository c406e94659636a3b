import type { EventEnvelope } from "@study/events/envelope";
import type {
  CalendarEventPage,
  CalendarEventRepository,
  EventListQuery,
  TransactionalCalendarEventRepository,
} from "../../src/application/ports/calendar-event-repository.port";
import { nextVersion, type CalendarEvent, type SourcedEvent } from "../../src/domain/calendar-event";

/** Ascending by start, then by id: the order of PrismaCalendarEventRepository.listOwned. */
const byStart = (a: CalendarEvent, b: CalendarEvent) => a.startDate.getTime() - b.startDate.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A transaction the in-memory repository is given by a test (it only records that it was passed through). */
export interface FakeTx {
  name: string;
}

/**
 * The repository port over a Map. `outbox` keeps the events each write was given, in order, as the Prisma
 * adapter stores them in the same transaction as the change.
 */
export class InMemoryCalendarEventRepository implements TransactionalCalendarEventRepository<FakeTx> {
  readonly outbox: EventEnvelope[] = [];
  readonly transactions: FakeTx[] = [];
  private readonly rows = new Map<string, CalendarEvent>();
  /** The source key of each event made from a source (by event id; the adapter's source_key column). */
  private readonly sourceKeys = new Map<string, string>();

  /** The source key an event was created with, if any. */
  sourceKeyOf(eventId: string): string | undefined {
    return this.sourceKeys.get(eventId);
  }

  /** Every stored event, by start. */
  all(): CalendarEvent[] {
    return [...this.rows.values()].map((event) => ({ ...event })).sort(byStart);
  }

  async insert(event: CalendarEvent, events: EventEnvelope[]): Promise<void> {
    if (this.rows.has(event.id)) throw new Error(`duplicate event id ${event.id}`);
    this.rows.set(event.id, { ...event });
    this.outbox.push(...events);
  }

  /** As the adapter's INSERT … ON CONFLICT DO NOTHING: an existing (user, key) keeps its event and announces nothing. */
  async insertFromSource(sourced: SourcedEvent[], events: (created: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent[]> {
    const created: CalendarEvent[] = [];
    for (const { sourceKey, event } of sourced) {
      // The unique (user_id, source_key): a stored event of the user with this key.
      const exists = [...this.rows.values()].some((row) => row.userId === event.userId && this.sourceKeys.get(row.id) === sourceKey);
      if (exists) continue;
      await this.insert(event, []);
      this.sourceKeys.set(event.id, sourceKey);
      created.push({ ...event });
    }
    this.outbox.push(...created.flatMap(events));
    return created;
  }

  async findOwned(userId: string, eventId: string): Promise<CalendarEvent | null> {
    const event = this.rows.get(eventId);
    return event && event.userId === userId ? { ...event } : null;
  }

  async listOwned(userId: string, query: EventListQuery): Promise<CalendarEventPage> {
    const matching = this.all().filter(
      (event) =>
        event.userId === userId &&
        (query.startsFrom === undefined || event.startDate >= query.startsFrom) &&
        (query.endsBefore === undefined || (event.endDate ?? event.startDate) < query.endsBefore) &&
        (query.eventType === undefined || event.eventType === query.eventType) &&
        (query.courseId === undefined || event.courseId === query.courseId),
    );
    return { events: matching.slice(query.offset, query.offset + query.limit), total: matching.length };
  }

  async update(event: CalendarEvent, events: (saved: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent | null> {
    const stored = this.rows.get(event.id);
    // As the adapter's locked read: an event that is gone or not the user's stays untouched, and nothing is announced.
    if (!stored || stored.userId !== event.userId) return null;
    // The Google link stays as stored, as in the adapter.
    const saved = {
      ...event,
      googleEventId: stored.googleEventId,
      googleCalendarId: stored.googleCalendarId,
      createdAt: stored.createdAt,
      updatedAt: nextVersion(stored.updatedAt, event.updatedAt),
    };
    this.rows.set(event.id, saved);
    this.outbox.push(...events({ ...saved }));
    return { ...saved };
  }

  async deleteOwned(userId: string, eventId: string, events: (deleted: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent | null> {
    const stored = this.rows.get(eventId);
    if (!stored || stored.userId !== userId) return null;
    this.rows.delete(eventId);
    this.outbox.push(...events(stored));
    return stored;
  }

  async detachCourse(
    userId: string,
    courseId: string,
    detach: (event: CalendarEvent) => CalendarEvent,
    events: (saved: CalendarEvent) => EventEnvelope[],
  ): Promise<CalendarEvent[]> {
    const detached = [...this.rows.values()]
      .filter((event) => event.userId === userId && event.courseId === courseId)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map((event) => {
        const changed = detach({ ...event });
        const saved = { ...event, courseId: changed.courseId, updatedAt: changed.updatedAt };
        this.rows.set(event.id, saved);
        return saved;
      });
    this.outbox.push(...detached.flatMap((saved) => events({ ...saved })));
    return detached.map((event) => ({ ...event }));
  }

  forTransaction(tx: FakeTx): Pick<CalendarEventRepository, "detachCourse"> {
    this.transactions.push(tx);
    return { detachCourse: (...args) => this.detachCourse(...args) };
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<CalendarEvent[]> {
    const { userId, afterId } = query;
    return [...this.rows.values()]
      .filter((event) => (userId === undefined || event.userId === userId) && (afterId === null || event.id > afterId))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, query.limit)
      .map((event) => ({ ...event }));
  }
}
