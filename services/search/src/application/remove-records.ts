import { recordKeyString, TYPES_DELETED_WITH_COURSE, type RecordKey, type RecordType } from "../domain/search-record";
import type { TransactionalIndexLedger } from "./ports/index-ledger.port";
import type { SearchIndex } from "./ports/search-index.port";

export interface DeletedRecord {
  type: RecordType;
  id: string;
  userId: string;
  courseId?: string;
}

/**
 * Forgets deleted records, in the consumer's inbox transaction: each is tombstoned in the ledger (so a create or
 * update arriving after its delete stays out) and removed from the index.
 */
export class RemoveRecords<Tx> {
  constructor(
    private readonly ledger: TransactionalIndexLedger<Tx>,
    private readonly index: SearchIndex,
  ) {}

  /** One deleted record; returns false when it was already tombstoned. */
  async execute(record: DeletedRecord, at: Date, tx: Tx): Promise<boolean> {
    const ledger = this.ledger.forTransaction(tx);
    const [held] = await ledger.lock([record]);
    if (held?.deletedAt) return false;
    await ledger.recordDeleted(record, at);
    if (record.type === "course") await ledger.deleteCourseName(record.userId, record.id);
    await this.index.remove([{ type: record.type, id: record.id }]);
    return true;
  }

  /**
   * A deleted course: the course and every record of it still indexed (its owners delete them and publish their
   * own delete events, which then find them tombstoned), except those that outlive it (TYPES_DELETED_WITH_COURSE).
   * Returns the keys removed.
   */
  async courseDeleted(userId: string, courseId: string, at: Date, tx: Tx): Promise<RecordKey[]> {
    const ledger = this.ledger.forTransaction(tx);
    const course: RecordKey = { type: "course", id: courseId };
    const [held] = await ledger.lock([course]);
    const removed = held?.deletedAt ? [] : [course];
    await ledger.recordDeleted({ ...course, userId, courseId }, at);
    removed.push(
      ...(await ledger.recordCourseDeleted(userId, courseId, at, TYPES_DELETED_WITH_COURSE)).filter(
        (key) => recordKeyString(key) !== recordKeyString(course),
      ),
    );
    await ledger.deleteCourseName(userId, courseId);
    if (removed.length > 0) await this.index.remove(removed);
    return removed;
  }
}
