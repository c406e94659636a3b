import { enqueueEvents, type EventEnvelope } from "@study/events";
import type { ReminderClaim, ReminderRepository } from "../../application/ports/reminder-repository.port";
import type { CalendarEvent } from "../../domain/calendar-event";
import type { PrismaClient } from "../../generated/prisma/client";

/**
 * Claims due reminders with `FOR UPDATE SKIP LOCKED`: replicas polling at the same moment each lock different
 * rows, and a row's `reminded_for` is set in the transaction that enqueues its reminder, so once it commits the
 * event is no longer due for that start. An update of the event (UpdateEvent locks the row) waits for the claim
 * and then, if it moves the start, makes the event due again.
 */
export class PrismaReminderRepository implements ReminderRepository {
  constructor(private readonly prisma: PrismaClient) {}

  claimDue(claim: ReminderClaim, announce: (event: CalendarEvent) => EventEnvelope[]): Promise<CalendarEvent[]> {
    const startedAfter = new Date(claim.now.getTime() - claim.graceMs);
    return this.prisma.$transaction(async (tx) => {
      // The due rule of domain/reminder.ts (isReminderDue); start_date > startedAfter bounds the scan by the index.
      const rows = await tx.$queryRaw<CalendarEvent[]>`
        SELECT id, user_id AS "userId", title, description, start_date AS "startDate", end_date AS "endDate",
          event_type::text AS "eventType", location, priority::text AS "priority", color, course_id AS "courseId",
          google_event_id AS "googleEventId", google_calendar_id AS "googleCalendarId", reminder_minutes AS "reminderMinutes",
          all_day_date AS "allDayDate", created_at AS "createdAt", updated_at AS "updatedAt"
        FROM calendar_event
        WHERE reminder_minutes > 0
          AND start_date > ${startedAfter}
          AND start_date - make_interval(mins => reminder_minutes) <= ${claim.now}
          AND reminded_for IS DISTINCT FROM start_date
        ORDER BY start_date, id
        LIMIT ${claim.limit}
        FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0) return [];
      await tx.$executeRaw`
        UPDATE calendar_event SET reminded_for = start_date WHERE id = ANY(${rows.map((row) => row.id)}::uuid[])`;
      await enqueueEvents(tx, rows.flatMap(announce));
      return rows;
    });
  }
}
