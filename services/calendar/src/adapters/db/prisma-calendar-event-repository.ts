import { enqueueEvents, type EventEnvelope } from "@study/events";
import type {
  CalendarEventPage,
  CalendarEventRepository,
  EventListQuery,
  TransactionalCalendarEventRepository,
} from "../../application/ports/calendar-event-repository.port";
import { nextVersion, type CalendarEvent, type SourcedEvent } from "../../domain/calendar-event";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

type Tx = Prisma.TransactionClient;

/**
 * Time a source's batch may hold its transaction (Prisma's default is 5 s): up to 1 000 rows with their outbox rows,
 * possibly after waiting for a concurrent call with the same keys to commit.
 */
const SOURCE_TRANSACTION_TIMEOUT_MS = 30_000;

/** The columns of a calendar event under the domain's names, for raw statements. */
export const EVENT_COLUMNS = Prisma.sql`id, user_id AS "userId", title, description, start_date AS "startDate", end_date AS "endDate",
  event_type::text AS "eventType", location, priority::text AS "priority", color, course_id AS "courseId",
  google_event_id AS "googleEventId", google_calendar_id AS "googleCalendarId", reminder_minutes AS "reminderMinutes",
  all_day_date AS "allDayDate", created_at AS "createdAt", updated_at AS "updatedAt"`;

export class PrismaCalendarEventRepository implements TransactionalCalendarEventRepository<Tx> {
  constructor(private readonly prisma: PrismaClient) {}

  async insert(event: CalendarEvent, events: EventEnvelope[]): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.calendarEvent.create({ data: event });
      await enqueueEvents(tx, events);
    });
  }

  /**
   * One INSERT … ON CONFLICT DO NOTHING (Prisma's skipDuplicates): the unique index on (user_id, source_key) makes
   * a concurrent call with the same keys wait for this transaction, then skip what it inserted. The other unique
   * keys are the new id and the Google link (none yet), so a skipped row is a key that exists. The rows go in key
   * order, so that calls with the same keys in another order wait on each other instead of deadlocking.
   */
  insertFromSource(sourced: SourcedEvent[], events: (created: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent[]> {
    const data = sourced
      .map(({ sourceKey, event }) => ({ ...event, sourceKey }))
      .sort((a, b) => (a.sourceKey < b.sourceKey ? -1 : a.sourceKey > b.sourceKey ? 1 : 0));
    return this.prisma.$transaction(
      async (tx) => {
        const created = await tx.calendarEvent.createManyAndReturn({ data, skipDuplicates: true });
        await enqueueEvents(tx, created.flatMap(events));
        return created;
      },
      { timeout: SOURCE_TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
    );
  }

  findOwned(userId: string, eventId: string): Promise<CalendarEvent | null> {
    return this.prisma.calendarEvent.findFirst({ where: { id: eventId, userId } });
  }

  /**
   * One statement for a page and its total (`count(*) over ()`), as courses does. A page past the end has no
   * row to carry the total, so only then is it counted on its own.
   */
  async listOwned(userId: string, query: EventListQuery): Promise<CalendarEventPage> {
    const where = this.listFilter(userId, query);
    const rows = await this.prisma.$queryRaw<(CalendarEvent & { total: bigint })[]>`
      SELECT ${EVENT_COLUMNS}, count(*) OVER () AS total
      FROM calendar_event
      WHERE ${where}
      ORDER BY start_date ASC, id ASC
      LIMIT ${query.limit} OFFSET ${query.offset}`;
    if (rows.length > 0) return { events: rows.map(({ total: _total, ...event }) => event), total: Number(rows[0].total) };
    if (query.offset === 0) return { events: [], total: 0 };
    const [{ total }] = await this.prisma.$queryRaw<{ total: bigint }[]>`SELECT count(*) AS total FROM calendar_event WHERE ${where}`;
    return { events: [], total: Number(total) };
  }

  private listFilter(userId: string, query: EventListQuery): Prisma.Sql {
    const conditions = [Prisma.sql`user_id = ${userId}`];
    if (query.startsFrom) conditions.push(Prisma.sql`start_date >= ${query.startsFrom}`);
    // An event without an end ends at its start.
    if (query.endsBefore) conditions.push(Prisma.sql`coalesce(end_date, start_date) < ${query.endsBefore}`);
    if (query.eventType) conditions.push(Prisma.sql`event_type = ${query.eventType}::"EventType"`);
    if (query.courseId) conditions.push(Prisma.sql`course_id = ${query.courseId}::uuid`);
    return Prisma.join(conditions, " AND ");
  }

  async update(event: CalendarEvent, events: (saved: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent | null> {
    const { id, userId, createdAt: _createdAt, ...changes } = event;
    return this.prisma.$transaction(async (tx) => {
      const [stored] = await tx.$queryRaw<{ updatedAt: Date }[]>`
        SELECT updated_at AS "updatedAt" FROM calendar_event WHERE id = ${id}::uuid AND user_id = ${userId} FOR UPDATE`;
      if (!stored) return null;
      // reminded_for is the reminder scheduler's: the event was read before this transaction, so writing back the
      // value read with it could undo a reminder claimed since, and send that reminder twice.
      // The Google link is the push's and the sync's (stored by them since the event was read): left as stored.
      const data = {
        ...changes,
        remindedFor: undefined,
        googleEventId: undefined,
        googleCalendarId: undefined,
        updatedAt: nextVersion(stored.updatedAt, event.updatedAt),
      };
      const saved = await tx.calendarEvent.update({ where: { id }, data });
      await enqueueEvents(tx, events(saved));
      return saved;
    });
  }

  async deleteOwned(userId: string, eventId: string, events: (deleted: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent | null> {
    return this.prisma.$transaction(async (tx) => {
      const [deleted] = await tx.$queryRaw<CalendarEvent[]>`
        DELETE FROM calendar_event WHERE id = ${eventId}::uuid AND user_id = ${userId} RETURNING ${EVENT_COLUMNS}`;
      if (!deleted) return null;
      await enqueueEvents(tx, events(deleted));
      return deleted;
    });
  }

  detachCourse(
    userId: string,
    courseId: string,
    detach: (event: CalendarEvent) => CalendarEvent,
    events: (saved: CalendarEvent) => EventEnvelope[],
  ): Promise<CalendarEvent[]> {
    return this.prisma.$transaction((tx) => detachCourseIn(tx, userId, courseId, detach, events));
  }

  forTransaction(tx: Tx): Pick<CalendarEventRepository, "detachCourse"> {
    return { detachCourse: (userId, courseId, detach, events) => detachCourseIn(tx, userId, courseId, detach, events) };
  }

  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<CalendarEvent[]> {
    return this.prisma.calendarEvent.findMany({
      where: { ...(query.userId === undefined ? {} : { userId: query.userId }), ...(query.afterId === null ? {} : { id: { gt: query.afterId } }) },
      orderBy: { id: "asc" },
      take: query.limit,
    });
  }
}

/** Locks the course's events (a concurrent update waits, then finds them detached), then stores each detached. */
async function detachCourseIn(
  tx: Tx,
  userId: string,
  courseId: string,
  detach: (event: CalendarEvent) => CalendarEvent,
  events: (saved: CalendarEvent) => EventEnvelope[],
): Promise<CalendarEvent[]> {
  const rows = await tx.$queryRaw<CalendarEvent[]>`
    SELECT ${EVENT_COLUMNS} FROM calendar_event WHERE user_id = ${userId} AND course_id = ${courseId}::uuid ORDER BY id FOR UPDATE`;
  const detached: CalendarEvent[] = [];
  for (const row of rows) {
    const changed = detach(row);
    const saved = await tx.calendarEvent.update({ where: { id: row.id }, data: { courseId: changed.courseId, updatedAt: changed.updatedAt } });
    detached.push(saved);
  }
  await enqueueEvents(tx, detached.flatMap(events));
  return detached;
}
