import type { Difficulty, RecordKey, RecordStatus, RecordType, SearchRecord } from "../../domain/search-record";

/** A search over one user's records. Every adapter restricts every query to `userId`. */
export interface IndexQuery {
  userId: string;
  /** The user's words, 1-500 characters; the last word also matches as a prefix (typing). */
  text: string;
  types?: RecordType[];
  courseId?: string;
  /** Creation range, inclusive start, exclusive end. */
  createdFrom?: Date;
  createdBefore?: Date;
  difficulty?: Difficulty[];
  status?: RecordStatus[];
  /** Hits scoring below this (0-1) are left out, and not counted. */
  minRelevance: number;
  limit: number;
  offset: number;
}

export interface IndexHit {
  record: SearchRecord;
  /** 0-1, comparable across types and adapters' documented normalisation. */
  relevanceScore: number;
  /** An excerpt of the best matching field with the matched words marked `<mark>…</mark>`. */
  snippet: string;
  /** The matched words or phrases, as they appear in the record. */
  highlights: string[];
}

export interface IndexPage {
  hits: IndexHit[];
  /** Matches above minRelevance, before limit/offset. */
  total: number;
  /** Matches above minRelevance per type, before limit/offset (types without a match are absent). */
  byType: Partial<Record<RecordType, number>>;
}

/**
 * The search engine. Writes are idempotent (upserting a record twice leaves one copy); ordering and
 * tombstones are decided before the index is called (see IndexRecords), so adapters do not compare versions.
 */
export interface SearchIndex {
  upsert(records: SearchRecord[]): Promise<void>;
  remove(keys: RecordKey[]): Promise<void>;
  /** Every record of the user (a user's reindex starts from nothing). */
  removeUser(userId: string): Promise<void>;
  search(query: IndexQuery): Promise<IndexPage>;
  /** Titles and terms of the user's own records that start with (or closely resemble) the prefix. */
  suggest(userId: string, prefix: string, limit: number): Promise<string[]>;
}
