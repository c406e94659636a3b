import type { SearchablePage, SearchableSource, SearchableSources } from "../../src/application/ports/searchable-sources.port";
import type { SearchRecord } from "../../src/domain/search-record";

/**
 * The owners' sources over arrays, paged like the gRPC ones (page token: the offset). `failing` names a source
 * whose calls reject; `calls` records every list call.
 */
export class InMemorySearchableSources implements SearchableSources {
  readonly sources: readonly SearchableSource[];
  failing?: string;
  /** Called on every list call (e.g. to move a test's clock as if the call took time). */
  onList?: () => void;
  readonly calls: { source: string; userId?: string; pageToken?: string }[] = [];
  closed = false;

  constructor(private readonly bySource: Record<string, { types: SearchableSource["types"]; records: SearchRecord[] }>) {
    this.sources = Object.entries(bySource).map(([name, { types }]) => ({ name, types }));
  }

  async list(source: string, query: { userId?: string; pageToken?: string; pageSize: number }): Promise<SearchablePage> {
    this.calls.push({ source, userId: query.userId, pageToken: query.pageToken });
    this.onList?.();
    if (this.failing === source) throw new Error(`${source} is unavailable`);
    const all = (this.bySource[source]?.records ?? []).filter((record) => query.userId === undefined || record.userId === query.userId);
    const start = Number(query.pageToken ?? "0");
    const end = start + query.pageSize;
    return { records: all.slice(start, end).map((record) => ({ ...record })), nextPageToken: end < all.length ? String(end) : undefined };
  }

  close(): void {
    this.closed = true;
  }
}
