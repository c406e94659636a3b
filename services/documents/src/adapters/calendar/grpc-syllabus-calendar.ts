import { calendar } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { SyllabusCalendar } from "../../application/ports/syllabus-calendar.port";
import type { SyllabusItem } from "../../domain/syllabus/parse-syllabus";

const EVENT_TYPES: Record<SyllabusItem["type"], calendar.EventType> = {
  CLASS: calendar.EventType.EVENT_TYPE_CLASS,
  EXAM: calendar.EventType.EVENT_TYPE_EXAM,
  DEADLINE: calendar.EventType.EVENT_TYPE_DEADLINE,
  MEETING: calendar.EventType.EVENT_TYPE_MEETING,
};

/** The calendar service's CreateEventsFromSource, for a syllabus's items. */
export class GrpcSyllabusCalendar implements SyllabusCalendar {
  private readonly client;

  constructor(address: string, deadlineMs = 15_000) {
    this.client = createClient(calendar.CalendarServiceClient, calendar.CalendarServiceService, address, { deadlineMs });
  }

  async createEvents(userId: string, courseId: string, items: { sourceKey: string; item: SyllabusItem }[]) {
    const reply = await this.client.createEventsFromSource({
      userId,
      courseId,
      items: items.map(({ sourceKey, item }) => ({
        sourceKey,
        title: item.title,
        description: item.description || undefined,
        startDate: item.startTime,
        endDate: item.endTime ?? undefined,
        eventType: EVENT_TYPES[item.type],
        location: item.location ?? undefined,
        allDayDate: item.allDay ? item.localDate : undefined,
      })),
    });
    return { created: reply.created, existing: reply.existing };
  }

  close(): void {
    this.client.close();
  }
}
