import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import type { CalendarEvent } from "../domain/calendar-event";
import type { CalendarEventRepository } from "./ports/calendar-event-repository.port";

export const eventNotFound = (): AppError => AppError.notFound("Calendar event", "CALENDAR_EVENT_NOT_FOUND");

/** An event id that cannot name an event is invalid input (400), as the spec answers an invalid id. */
export function requireEventId(eventId: string): string {
  if (!isUuid(eventId)) throw AppError.validation("Invalid event id", [{ field: "id", message: "must be an event id (UUID)" }]);
  return eventId;
}

export class GetEvent {
  constructor(private readonly events: Pick<CalendarEventRepository, "findOwned">) {}

  /** The user's event; another user's event or an unknown id is CALENDAR_EVENT_NOT_FOUND alike. */
  async execute(userId: string, eventId: string): Promise<CalendarEvent> {
    requireUserId(userId);
    const event = await this.events.findOwned(userId, requireEventId(eventId));
    if (!event) throw eventNotFound();
    return event;
  }
}
