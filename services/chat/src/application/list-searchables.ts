import { SearchableListing } from "@study/platform/searchable-page";
import type { SearchableSessions } from "./ports/searchable-sessions.port";
import { toSearchable, type Searchable } from "./searchable";

/** SearchableSourceService.ListSearchables: every chat session (or one user's) as search indexes it, in id order. */
export class ListSearchables extends SearchableListing<Searchable> {
  constructor(sessions: SearchableSessions) {
    super(async (range) => (await sessions.sessionsPageAfter(range)).map(({ session, transcript }) => toSearchable(session, transcript)));
  }
}
