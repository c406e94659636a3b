import { enqueueEvents, type EventEnvelope } from "@study/events";
import { newId } from "@study/grpc/ids";
import type { AppliedChanges, ChangeKind, GoogleSyncRepository, IncomingGoogleEvent } from "../../application/ports/google-sync-repository.port";
import { DEFAULT_PRIORITY, DEFAULT_REMINDER_MINUTES, nextVersion, type CalendarEvent } from "../../domain/calendar-event";
import type { ImportedFields } from "../../domain/google-event";
import type { PrismaClient } from "../../generated/prisma/client";
import { EVENT_COLUMNS } from "./prisma-calendar-event-repository";

const sameInstant = (a: Date | null, b: Date | null) => (a === null || b === null ? a === b : a.getTime() === b.getTime());

/** Whether Google's fields differ from what the event has (an unchanged event is left as it is: no new version). */
const differs = (event: CalendarEvent, fields: ImportedFields) =>
  event.title !== fields.title ||
  event.description !== fields.description ||
  event.location !== fields.location ||
  !sameInstant(event.startDate, fields.startDate) ||
  !sameInstant(event.endDate, fields.endDate) ||
  event.allDayDate !== fields.allDayDate;

export class PrismaGoogleSyncRepository implements GoogleSyncRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async syncToken(userId: string): Promise<string | null> {
    const state = await this.prisma.googleSyncState.findUnique({ where: { userId } });
    return state?.syncToken ?? null;
  }

  async saveSyncToken(userId: string, syncToken: string | null): Promise<void> {
    const syncedAt = new Date();
    await this.prisma.googleSyncState.upsert({ where: { userId }, create: { userId, syncToken, syncedAt }, update: { syncToken, syncedAt } });
  }

  applyChanges(
    userId: string,
    calendarId: string,
    changes: { incoming: IncomingGoogleEvent[]; deletedGoogleIds: string[] },
    events: (kind: ChangeKind, event: CalendarEvent) => EventEnvelope,
  ): Promise<AppliedChanges> {
    return this.prisma.$transaction(async (tx) => {
      const now = new Date();
      // A pushed event whose link was not stored yet (the push and this sync crossed) is linked, not imported twice.
      for (const event of changes.incoming.filter((incoming) => incoming.studyEventId)) {
        await tx.$executeRaw`
          UPDATE calendar_event SET google_event_id = ${event.googleEventId}, google_calendar_id = ${calendarId}
          WHERE id = ${event.studyEventId}::uuid AND user_id = ${userId} AND google_event_id IS NULL
            AND NOT EXISTS (SELECT 1 FROM calendar_event WHERE user_id = ${userId} AND google_event_id = ${event.googleEventId})`;
      }
      const googleIds = changes.incoming.map((incoming) => incoming.googleEventId);
      const existing = googleIds.length
        ? await tx.$queryRaw<CalendarEvent[]>`
            SELECT ${EVENT_COLUMNS} FROM calendar_event
            WHERE user_id = ${userId} AND google_event_id = ANY(${googleIds}::text[]) FOR UPDATE`
        : [];
      const byGoogleId = new Map(existing.map((event) => [event.googleEventId, event]));

      const updated: CalendarEvent[] = [];
      const toCreate: CalendarEvent[] = [];
      for (const incoming of changes.incoming) {
        const current = byGoogleId.get(incoming.googleEventId);
        if (current) {
          if (!differs(current, incoming.fields)) continue;
          const saved = await tx.calendarEvent.update({
            where: { id: current.id },
            data: { ...incoming.fields, updatedAt: nextVersion(current.updatedAt, now) },
          });
          updated.push(saved);
        } else if (incoming.mayCreate) {
          toCreate.push({
            id: newId(),
            userId,
            ...incoming.fields,
            eventType: incoming.defaults.eventType,
            priority: DEFAULT_PRIORITY,
            color: incoming.defaults.color,
            courseId: null,
            googleEventId: incoming.googleEventId,
            googleCalendarId: calendarId,
            reminderMinutes: incoming.defaults.reminderMinutes ?? DEFAULT_REMINDER_MINUTES,
            createdAt: now,
            updatedAt: now,
          });
        }
      }
      // A concurrent sync of the same user may have created some meanwhile: those are its changes, not ours.
      const created = toCreate.length ? await tx.calendarEvent.createManyAndReturn({ data: toCreate, skipDuplicates: true }) : [];
      const deleted = changes.deletedGoogleIds.length
        ? await tx.$queryRaw<CalendarEvent[]>`
            DELETE FROM calendar_event WHERE user_id = ${userId} AND google_event_id = ANY(${changes.deletedGoogleIds}::text[])
            RETURNING ${EVENT_COLUMNS}`
        : [];
      await enqueueEvents(tx, [
        ...created.map((event) => events("created", event)),
        ...updated.map((event) => events("updated", event)),
        ...deleted.map((event) => events("deleted", event)),
      ]);
      return { created, updated, deleted };
    });
  }

  deleteUnseen(
    userId: string,
    window: { from: Date; to: Date },
    seen: ReadonlySet<string>,
    events: (event: CalendarEvent) => EventEnvelope,
  ): Promise<CalendarEvent[]> {
    return this.prisma.$transaction(async (tx) => {
      const deleted = await tx.$queryRaw<CalendarEvent[]>`
        DELETE FROM calendar_event
        WHERE user_id = ${userId} AND google_event_id IS NOT NULL AND NOT (google_event_id = ANY(${[...seen]}::text[]))
          AND start_date >= ${window.from} AND start_date < ${window.to}
        RETURNING ${EVENT_COLUMNS}`;
      await enqueueEvents(tx, deleted.map(events));
      return deleted;
    });
  }

  async linkGoogleCopy(userId: string, eventId: string, googleEventId: string, googleCalendarId: string): Promise<boolean> {
    const linked = await this.prisma.$executeRaw`
      UPDATE calendar_event SET google_event_id = ${googleEventId}, google_calendar_id = ${googleCalendarId}
      WHERE id = ${eventId}::uuid AND user_id = ${userId} AND google_event_id IS NULL
        AND NOT EXISTS (SELECT 1 FROM calendar_event WHERE user_id = ${userId} AND google_event_id = ${googleEventId})`;
    return linked > 0;
  }
}
