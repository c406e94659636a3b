import { shouldApply } from "../domain/record-version";
import { recordKeyString, type SearchRecord } from "../domain/search-record";
import type { IndexLedger, TransactionalIndexLedger } from "./ports/index-ledger.port";
import type { SearchIndex } from "./ports/search-index.port";

export interface AppliedCount {
  /** Records written to the ledger and the index. */
  applied: number;
  /** Records left out: tombstoned, or older than the version held. */
  skipped: number;
}

/**
 * Applies records to the ledger and the index, in the ledger's transaction: the ledger rows are locked first,
 * so versions of one record are decided (shouldApply) and indexed one after the other. A course also names
 * itself for results and filters. Shared by the event consumer and the reindex.
 */
export async function applyRecords(ledger: IndexLedger, index: SearchIndex, records: SearchRecord[]): Promise<AppliedCount> {
  // Within one batch the newest version of a record wins (a source page lists each record once; this is cheap).
  const newest = new Map<string, SearchRecord>();
  for (const record of records) {
    const key = recordKeyString(record);
    const seen = newest.get(key);
    if (!seen || record.updatedAt.getTime() >= seen.updatedAt.getTime()) newest.set(key, record);
  }
  const candidates = [...newest.values()];
  if (candidates.length === 0) return { applied: 0, skipped: records.length };
  const held = new Map((await ledger.lock(candidates)).map((entry) => [recordKeyString(entry), entry]));
  const newer = candidates.filter((record) => shouldApply(held.get(recordKeyString(record)), record.updatedAt));
  const written = new Set(newer.length > 0 ? (await ledger.recordApplied(newer)).map(recordKeyString) : []);
  const applied = newer.filter((record) => written.has(recordKeyString(record)));
  for (const record of applied) {
    if (record.type === "course") {
      await ledger.saveCourseName(record.userId, { id: record.id, name: record.title, semester: record.metadata.semester ?? null });
    }
  }
  if (applied.length > 0) await index.upsert(applied);
  return { applied: applied.length, skipped: records.length - applied.length };
}

/**
 * Indexes what an owner's event describes, in the transaction in which the consumer records the event in its
 * inbox: a redelivered event never reaches this a second time, and a late or out-of-order one is decided by
 * the ledger's versions.
 */
export class IndexRecords<Tx> {
  constructor(
    private readonly ledger: TransactionalIndexLedger<Tx>,
    private readonly index: SearchIndex,
  ) {}

  execute(record: SearchRecord, tx: Tx): Promise<AppliedCount> {
    return applyRecords(this.ledger.forTransaction(tx), this.index, [record]);
  }
}
