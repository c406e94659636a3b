import type { Clock } from "@study/platform/clock";
import type { SourceType } from "../domain/passage";
import type { IndexDocument, IndexNote } from "./index-material";
import type { ListedSource, PassageStore, SourceCatalogue } from "./ports/material-sources.port";

/** Listing pages are small: each listed record carries its owner's searchable text, which the reindex ignores. */
export const REINDEX_PAGE_SIZE = 50;
/** Sources indexed at once (each one a call to its owner and a transaction). */
const CONCURRENCY = 4;
/**
 * A source's passages are dropped as gone only if written this long before the reindex started: the database's
 * clock and the command's differ a little, and a note indexed from an event while the reindex pages past it must
 * not be taken for gone.
 */
export const REMOVAL_MARGIN_MS = 60_000;

export interface ReindexProgress {
  sourceType: SourceType;
  /** Sources listed so far. */
  listed: number;
  /** Passages written for them. */
  passages: number;
  /** Listed sources that have no passages (no text yet, or gone since they were listed). */
  empty: number;
  elapsedMs: number;
  /** Milliseconds since this type's first page was asked for. */
  sourceElapsedMs: number;
  done: boolean;
}

export interface ReindexReport {
  listed: number;
  passages: number;
  empty: number;
  /** Sources that held passages but are listed no more: their passages were dropped. */
  removed: number;
  elapsedMs: number;
}

const SOURCE_TYPES: readonly SourceType[] = ["note", "document"];

/**
 * Rebuilds the passages (one user's or everyone's) from the owners: lists every note (media) and document
 * (documents), indexes each from its current state as the event consumer does, then drops the passages of sources
 * no longer listed (a delete event that was lost). A failure stops the reindex before anything is dropped.
 */
export class ReindexPassages {
  constructor(
    private readonly catalogue: SourceCatalogue,
    private readonly indexNote: IndexNote,
    private readonly indexDocument: IndexDocument,
    private readonly passages: PassageStore,
    private readonly clock: Clock,
    private readonly pageSize = REINDEX_PAGE_SIZE,
  ) {}

  async execute(options: { userId?: string }, onProgress: (progress: ReindexProgress) => void = () => undefined): Promise<ReindexReport> {
    const startedAt = this.clock.now();
    const elapsed = () => this.clock.now().getTime() - startedAt.getTime();
    const listed = new Set<string>();
    const report: ReindexReport = { listed: 0, passages: 0, empty: 0, removed: 0, elapsedMs: 0 };

    for (const sourceType of SOURCE_TYPES) {
      const counts = { sourceType, listed: 0, passages: 0, empty: 0 };
      const sourceStart = elapsed();
      let pageToken: string | undefined;
      do {
        const page = await this.catalogue.list(sourceType, { userId: options.userId, pageToken, pageSize: this.pageSize });
        for (let start = 0; start < page.sources.length; start += CONCURRENCY) {
          const written = await Promise.all(page.sources.slice(start, start + CONCURRENCY).map((source) => this.index(source)));
          for (const count of written) {
            counts.passages += count;
            if (count === 0) counts.empty += 1;
          }
        }
        for (const source of page.sources) listed.add(keyOf(source.sourceType, source.sourceId));
        counts.listed += page.sources.length;
        pageToken = page.nextPageToken || undefined;
        const elapsedMs = elapsed();
        onProgress({ ...counts, elapsedMs, sourceElapsedMs: elapsedMs - sourceStart, done: pageToken === undefined });
      } while (pageToken !== undefined);
      report.listed += counts.listed;
      report.passages += counts.passages;
      report.empty += counts.empty;
    }

    const before = new Date(startedAt.getTime() - REMOVAL_MARGIN_MS);
    const indexed = await this.passages.sourcesIndexedBefore({ userId: options.userId, before });
    for (const source of indexed.filter((candidate) => !listed.has(keyOf(candidate.sourceType, candidate.sourceId)))) {
      await this.passages.deleteSource(source.sourceType, source.sourceId);
      report.removed += 1;
    }
    report.elapsedMs = elapsed();
    return report;
  }

  private index(source: ListedSource): Promise<number> {
    return source.sourceType === "note"
      ? this.indexNote.execute(source.userId, source.sourceId)
      : this.indexDocument.execute(source.userId, source.sourceId);
  }
}

const keyOf = (sourceType: SourceType, sourceId: string) => `${sourceType}:${sourceId}`;
