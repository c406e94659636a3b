import type { NoteRepository } from "./ports/note-repository.port";
import { decodePageToken, encodePageToken, searchableOwner, searchablePageSize } from "@study/platform/searchable-page";
import { toSearchable, type Searchable } from "./searchable";

export interface SearchablePage {
  searchables: Searchable[];
  /** Empty after the last page. */
  nextPageToken: string;
}

/** SearchableSourceService.ListSearchables: every note (or one user's) as search indexes it, in id order. */
export class ListSearchables {
  constructor(private readonly notes: Pick<NoteRepository, "listPageAfter">) {}

  async execute(query: { userId?: string; pageToken: string; pageSize: number }): Promise<SearchablePage> {
    const userId = searchableOwner(query.userId);
    const limit = searchablePageSize(query.pageSize);
    const afterId = decodePageToken(query.pageToken);
    // One row more than the page tells whether another page follows, so the last page ends with an empty token.
    const notes = await this.notes.listPageAfter({ userId, afterId, limit: limit + 1 });
    const page = notes.slice(0, limit);
    const last = page.at(-1);
    return { searchables: page.map(toSearchable), nextPageToken: notes.length > limit && last ? encodePageToken(last.id) : "" };
  }
}
