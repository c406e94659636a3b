import { SearchableListing } from "@study/platform/searchable-page";
import type { CalendarEventRepository } from "./ports/calendar-event-repository.port";
import { toSearchable, type Searchable } from "./searchable";

/** SearchableSourceService.ListSearchables: every calendar event (or one user's) as search indexes it, in id order. */
export class ListSearchables extends SearchableListing<Searchable> {
  constructor(events: Pick<CalendarEventRepository, "listPageAfter">) {
    super(async (range) => (await events.listPageAfter(range)).map(toSearchable));
  }
}
