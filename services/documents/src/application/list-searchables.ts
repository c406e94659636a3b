import { decodePageToken, encodePageToken, searchableOwner, searchablePageSize } from "@study/platform/searchable-page";
import type { DocumentRepository } from "./ports/document-repository.port";
import { toSearchable, type Searchable } from "./searchable";

export interface SearchablePage {
  searchables: Searchable[];
  /** Empty after the last page. */
  nextPageToken: string;
}

/** SearchableSourceService.ListSearchables: every document (or one user's) as search indexes it, in id order. */
export class ListSearchables {
  constructor(private readonly documents: Pick<DocumentRepository, "listPageAfter">) {}

  async execute(query: { userId?: string; pageToken: string; pageSize: number }): Promise<SearchablePage> {
    const userId = searchableOwner(query.userId);
    const limit = searchablePageSize(query.pageSize);
    const afterId = decodePageToken(query.pageToken);
    // One row more than the page tells whether another page follows, so the last page ends with an empty token.
    const documents = await this.documents.listPageAfter({ userId, afterId, limit: limit + 1 });
    const page = documents.slice(0, limit);
    const last = page.at(-1);
    return { searchables: page.map(toSearchable), nextPageToken: documents.length > limit && last ? encodePageToken(last.id) : "" };
  }
}
