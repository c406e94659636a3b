import type { IndexHit, IndexPage, IndexQuery, SearchIndex } from "../../src/application/ports/search-index.port";
import { recordKeyString, type RecordKey, type RecordType, type SearchRecord } from "../../src/domain/search-record";

const words = (text: string) => text.toLowerCase().split(/\s+/).filter(Boolean);

/**
 * The SearchIndex port over a Map, with a plain rule the use-case tests can predict: a record matches when every
 * word of the query occurs in its title, keywords, description or content; a match in the title scores 1, else
 * 0.5. `failure` makes every call reject (an index that is down).
 */
export class InMemorySearchIndex implements SearchIndex {
  failure?: Error;
  private readonly records = new Map<string, SearchRecord>();

  /** Every indexed record, by key. */
  all(): SearchRecord[] {
    return [...this.records.values()].sort((a, b) => recordKeyString(a).localeCompare(recordKeyString(b)));
  }

  has(key: RecordKey): boolean {
    return this.records.has(recordKeyString(key));
  }

  get(key: RecordKey): SearchRecord | undefined {
    return this.records.get(recordKeyString(key));
  }

  async upsert(records: SearchRecord[]): Promise<void> {
    this.failIfDown();
    for (const record of records) this.records.set(recordKeyString(record), { ...record });
  }

  async remove(keys: RecordKey[]): Promise<void> {
    this.failIfDown();
    for (const key of keys) this.records.delete(recordKeyString(key));
  }

  async removeUser(userId: string): Promise<void> {
    this.failIfDown();
    for (const [key, record] of this.records) if (record.userId === userId) this.records.delete(key);
  }

  async search(query: IndexQuery): Promise<IndexPage> {
    this.failIfDown();
    const wanted = words(query.text);
    const hits: IndexHit[] = [];
    for (const record of this.records.values()) {
      if (record.userId !== query.userId) continue;
      if (query.types && !query.types.includes(record.type)) continue;
      if (query.courseId && record.courseId !== query.courseId) continue;
      if (query.createdFrom && record.createdAt < query.createdFrom) continue;
      if (query.createdBefore && record.createdAt >= query.createdBefore) continue;
      if (query.difficulty && (!record.difficulty || !query.difficulty.includes(record.difficulty))) continue;
      if (query.status && (!record.status || !query.status.includes(record.status))) continue;
      const text = words([record.title, ...record.keywords, record.description, record.content].join(" ")).join(" ");
      if (!wanted.every((word) => text.includes(word))) continue;
      const inTitle = wanted.every((word) => record.title.toLowerCase().includes(word));
      const relevanceScore = inTitle ? 1 : 0.5;
      if (relevanceScore < query.minRelevance) continue;
      hits.push({ record: { ...record }, relevanceScore, snippet: `<mark>${record.title}</mark>`, highlights: wanted });
    }
    hits.sort((a, b) => b.relevanceScore - a.relevanceScore || a.record.id.localeCompare(b.record.id));
    const byType: Partial<Record<RecordType, number>> = {};
    for (const hit of hits) byType[hit.record.type] = (byType[hit.record.type] ?? 0) + 1;
    return { hits: hits.slice(query.offset, query.offset + query.limit), total: hits.length, byType };
  }

  async suggest(userId: string, prefix: string, limit: number): Promise<string[]> {
    this.failIfDown();
    const lower = prefix.toLowerCase();
    const titles = [...this.records.values()].filter((r) => r.userId === userId && r.title.toLowerCase().startsWith(lower)).map((r) => r.title);
    return [...new Set(titles)].sort().slice(0, limit);
  }

  private failIfDown(): void {
    if (this.failure) throw this.failure;
  }
}
