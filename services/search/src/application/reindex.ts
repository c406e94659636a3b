import type { Clock } from "@study/platform/clock";
import { recordKeyString } from "../domain/search-record";
import { applyRecords } from "./index-records";
import type { TransactionalIndexLedger } from "./ports/index-ledger.port";
import type { SearchIndex } from "./ports/search-index.port";
import type { SearchableSources } from "./ports/searchable-sources.port";

export const REINDEX_PAGE_SIZE = 500;
/**
 * An entry is removed only if last applied this long before the reindex started: the owners' clocks and
 * search's differ a little, and a record created while the reindex pages past it must not be taken for gone.
 */
export const REMOVAL_MARGIN_MS = 60_000;

export interface ReindexProgress {
  source: string;
  /** Records the source listed so far. */
  listed: number;
  applied: number;
  skipped: number;
  /** Milliseconds since the reindex started. */
  elapsedMs: number;
  /** Milliseconds since this source's first page was asked for (its rate: listed / sourceElapsedMs). */
  sourceElapsedMs: number;
  /** The source's last page. */
  done: boolean;
}

export interface ReindexReport {
  sources: { source: string; listed: number; applied: number; skipped: number }[];
  listed: number;
  applied: number;
  skipped: number;
  /** Entries the sources no longer list, removed from the index and the ledger. */
  removed: number;
  elapsedMs: number;
}

/**
 * Rebuilds the index (one user's or everyone's) from the owning services: pages through every source and
 * applies each page like the event consumer does (a tombstoned record stays out, an older version than the one
 * held is skipped, an equal or newer one is written again), then removes from the index and the ledger the live
 * entries of the sources' types that no source listed. A source failing stops the reindex before anything is
 * removed.
 */
export class Reindex<Tx> {
  constructor(
    private readonly ledger: TransactionalIndexLedger<Tx>,
    private readonly index: SearchIndex,
    private readonly sources: SearchableSources,
    private readonly clock: Clock,
    private readonly pageSize = REINDEX_PAGE_SIZE,
  ) {}

  async execute(options: { userId?: string }, onProgress: (progress: ReindexProgress) => void = () => undefined): Promise<ReindexReport> {
    const startedAt = this.clock.now();
    const elapsed = () => this.clock.now().getTime() - startedAt.getTime();
    const listedKeys = new Set<string>();
    const report: ReindexReport = { sources: [], listed: 0, applied: 0, skipped: 0, removed: 0, elapsedMs: 0 };

    for (const source of this.sources.sources) {
      const counts = { source: source.name, listed: 0, applied: 0, skipped: 0 };
      const sourceStart = elapsed();
      let pageToken: string | undefined;
      do {
        const page = await this.sources.list(source.name, { userId: options.userId, pageToken, pageSize: this.pageSize });
        for (const record of page.records) listedKeys.add(recordKeyString(record));
        const result = await this.ledger.transaction((ledger) => applyRecords(ledger, this.index, page.records));
        counts.listed += page.records.length;
        counts.applied += result.applied;
        counts.skipped += result.skipped;
        pageToken = page.nextPageToken || undefined;
        const elapsedMs = elapsed();
        onProgress({ ...counts, elapsedMs, sourceElapsedMs: elapsedMs - sourceStart, done: pageToken === undefined });
      } while (pageToken !== undefined);
      report.sources.push(counts);
      report.listed += counts.listed;
      report.applied += counts.applied;
      report.skipped += counts.skipped;
    }

    const types = [...new Set(this.sources.sources.flatMap((source) => source.types))];
    const before = new Date(startedAt.getTime() - REMOVAL_MARGIN_MS);
    const gone = (await this.ledger.liveKeys({ userId: options.userId, types, before })).filter((key) => !listedKeys.has(recordKeyString(key)));
    for (let start = 0; start < gone.length; start += this.pageSize) {
      const keys = gone.slice(start, start + this.pageSize);
      await this.ledger.transaction(async (ledger) => {
        await this.index.remove(keys);
        await ledger.forget(keys);
      });
    }
    report.removed = gone.length;
    report.elapsedMs = elapsed();
    return report;
  }
}
