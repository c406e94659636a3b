import { calendarEventDeleted } from "./calendar-events";
import { eventNotFound, type GetEvent } from "./get-event";
import type { CalendarEventRepository } from "./ports/calendar-event-repository.port";

export class DeleteEvent {
  constructor(
    private readonly events: CalendarEventRepository,
    private readonly getEvent: GetEvent,
  ) {}

  async execute(userId: string, eventId: string): Promise<void> {
    const event = await this.getEvent.execute(userId, eventId);
    // Deleted concurrently between the read and the delete: same answer as never having existed.
    if (!(await this.events.deleteOwned(userId, event.id, (deleted) => [calendarEventDeleted(deleted)]))) throw eventNotFound();
  }
}
