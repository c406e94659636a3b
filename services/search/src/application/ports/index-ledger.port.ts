import type { AppliedVersion } from "../../domain/record-version";
import type { RecordKey, RecordType, SearchRecord } from "../../domain/search-record";

/** What search holds of one record: the version applied, or its tombstone. */
export interface LedgerEntry extends RecordKey, AppliedVersion {
  userId: string;
  courseId?: string | null;
}

/** A course as results and filters name it. */
export interface CourseName {
  id: string;
  name: string;
  semester?: string | null;
}

/**
 * The ledger of indexed records (`indexed_record`) and the user's course names (`course_name`). The write
 * methods are meant for a transaction (see TransactionalIndexLedger): the lock taken by `lock` lasts until it
 * ends, so two versions of one record are decided and indexed one after the other.
 */
export interface IndexLedger {
  /** The entries of these records, locked until the transaction ends (`SELECT … FOR UPDATE`); absent when unknown. */
  lock(keys: RecordKey[]): Promise<LedgerEntry[]>;
  /**
   * Records the versions applied (one per record), except where meanwhile a newer version or a tombstone was
   * written (two first versions racing on a record without an entry yet to lock); returns the keys written.
   */
  recordApplied(records: SearchRecord[]): Promise<RecordKey[]>;
  /** Tombstones the record (creating its entry if unknown, so that a create arriving later stays out). */
  recordDeleted(entry: { type: RecordType; id: string; userId: string; courseId?: string }, at: Date): Promise<void>;
  /** Tombstones every live record of these types of the user's course; returns their keys. */
  recordCourseDeleted(userId: string, courseId: string, at: Date, types: readonly RecordType[]): Promise<RecordKey[]>;
  /** Forgets these entries, and the names of forgotten courses (a reindex found them gone from their source). */
  forget(keys: RecordKey[]): Promise<void>;
  /**
   * Live entries of these types (of one user, or everyone's) last applied before `before`: what a reindex that
   * started at `before` compares with what the sources listed.
   */
  liveKeys(query: { userId?: string; types: readonly RecordType[]; before: Date }): Promise<RecordKey[]>;

  saveCourseName(userId: string, course: CourseName): Promise<void>;
  deleteCourseName(userId: string, courseId: string): Promise<void>;
  /** The user's courses among these ids (another user's course is never named). */
  courseNames(userId: string, courseIds: string[]): Promise<CourseName[]>;
  /** Every course of the user, by name. */
  listCourses(userId: string): Promise<CourseName[]>;
}

/**
 * A ledger that also works inside a transaction someone else opened (the event consumer's inbox transaction,
 * so that the event is recorded as handled together with its effect). `Tx` is the adapter's transaction client.
 */
export interface TransactionalIndexLedger<Tx> extends IndexLedger {
  forTransaction(tx: Tx): IndexLedger;
  /** Runs `work` in a transaction of its own (the reindex, a page at a time). */
  transaction<R>(work: (ledger: IndexLedger) => Promise<R>): Promise<R>;
}
