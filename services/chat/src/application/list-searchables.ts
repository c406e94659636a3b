import { decodePageToken, encodePageToken, searchableOwner, searchablePageSize } from "@study/platform/searchable-page";
import type { SearchableSessions } from "./ports/searchable-sessions.port";
import { toSearchable, type Searchable } from "./searchable";

export interface SearchablePage {
  searchables: Searchable[];
  /** Empty after the last page. */
  nextPageToken: string;
}

/** SearchableSourceService.ListSearchables: every chat session (or one user's) as search indexes it, in id order. */
export class ListSearchables {
  constructor(private readonly sessions: SearchableSessions) {}

  async execute(query: { userId?: string; pageToken: string; pageSize: number }): Promise<SearchablePage> {
    const userId = searchableOwner(query.userId);
    const limit = searchablePageSize(query.pageSize);
    const afterId = decodePageToken(query.pageToken);
    // One row more than the page tells whether another page follows, so the last page ends with an empty token.
    const sessions = await this.sessions.sessionsPageAfter({ userId, afterId, limit: limit + 1 });
    const page = sessions.slice(0, limit);
    const last = page.at(-1);
    return {
      searchables: page.map(({ session, transcript }) => toSearchable(session, transcript)),
      nextPageToken: sessions.length > limit && last ? encodePageToken(last.session.id) : "",
    };
  }
}
