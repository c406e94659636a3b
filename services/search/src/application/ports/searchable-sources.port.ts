import type { RecordType, SearchRecord } from "../../domain/search-record";

/** One service that owns searchable records and lists them for a reindex. */
export interface SearchableSource {
  /** The owning service (courses, media, study). */
  name: string;
  /** The record types it owns: what a reindex may remove when the source no longer lists a record. */
  types: readonly RecordType[];
}

export interface SearchablePage {
  records: SearchRecord[];
  /** Absent after the last page. */
  nextPageToken?: string;
}

/** The owners' SearchableSourceService: every record they hold, a page at a time, in a stable order. */
export interface SearchableSources {
  readonly sources: readonly SearchableSource[];
  /** A page of the source's records (one user's, or everyone's); a record it cannot describe is left out. */
  list(source: string, query: { userId?: string; pageToken?: string; pageSize: number }): Promise<SearchablePage>;
  close(): void;
}
