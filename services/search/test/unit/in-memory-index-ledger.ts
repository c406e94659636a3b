import type { CourseName, IndexLedger, LedgerEntry, TransactionalIndexLedger } from "../../src/application/ports/index-ledger.port";
import { recordKeyString, type RecordKey, type RecordType, type SearchRecord } from "../../src/domain/search-record";

/** Stands for the consumer's transaction client; the in-memory ledger has no transactions to join. */
export type InMemoryTx = { readonly transaction: true };
export const TX: InMemoryTx = { transaction: true };

/**
 * The ledger port over Maps, with the Prisma adapter's rules (recordApplied re-checks the ordering rule;
 * tombstones are final; course names per user). `failure` makes every call reject (a database that is down).
 */
export class InMemoryIndexLedger implements TransactionalIndexLedger<InMemoryTx> {
  failure?: Error;
  /** Transactions the reindex opened. */
  transactions = 0;
  private readonly entries = new Map<string, LedgerEntry>();
  private readonly courses = new Map<string, CourseName & { userId: string }>();

  entry(key: RecordKey): LedgerEntry | undefined {
    const entry = this.entries.get(recordKeyString(key));
    return entry && { ...entry };
  }

  forTransaction(_tx: InMemoryTx): IndexLedger {
    return this;
  }

  async transaction<R>(work: (ledger: IndexLedger) => Promise<R>): Promise<R> {
    this.transactions += 1;
    return work(this);
  }

  async lock(keys: RecordKey[]): Promise<LedgerEntry[]> {
    this.failIfDown();
    return keys.flatMap((key) => {
      const entry = this.entries.get(recordKeyString(key));
      return entry ? [{ ...entry }] : [];
    });
  }

  async recordApplied(records: SearchRecord[]): Promise<RecordKey[]> {
    this.failIfDown();
    const written: RecordKey[] = [];
    for (const record of records) {
      const held = this.entries.get(recordKeyString(record));
      if (held && (held.deletedAt || held.updatedAt > record.updatedAt)) continue;
      this.entries.set(recordKeyString(record), {
        type: record.type,
        id: record.id,
        userId: record.userId,
        courseId: record.courseId ?? null,
        updatedAt: record.updatedAt,
        deletedAt: null,
      });
      written.push({ type: record.type, id: record.id });
    }
    return written;
  }

  async recordDeleted(entry: { type: RecordType; id: string; userId: string; courseId?: string }, at: Date): Promise<void> {
    this.failIfDown();
    const held = this.entries.get(recordKeyString(entry));
    if (held) held.deletedAt ??= at;
    else this.entries.set(recordKeyString(entry), { ...entry, courseId: entry.courseId ?? null, updatedAt: at, deletedAt: at });
  }

  async recordCourseDeleted(userId: string, courseId: string, at: Date, types: readonly RecordType[]): Promise<RecordKey[]> {
    this.failIfDown();
    const keys: RecordKey[] = [];
    for (const entry of this.entries.values()) {
      if (entry.userId === userId && entry.courseId === courseId && !entry.deletedAt && types.includes(entry.type)) {
        entry.deletedAt = at;
        keys.push({ type: entry.type, id: entry.id });
      }
    }
    return keys;
  }

  async forget(keys: RecordKey[]): Promise<void> {
    this.failIfDown();
    for (const key of keys) {
      this.entries.delete(recordKeyString(key));
      if (key.type === "course") this.courses.delete(key.id);
    }
  }

  async liveKeys(query: { userId?: string; types: readonly RecordType[]; before: Date }): Promise<RecordKey[]> {
    this.failIfDown();
    return [...this.entries.values()]
      .filter(
        (e) =>
          (query.userId === undefined || e.userId === query.userId) && query.types.includes(e.type) && !e.deletedAt && e.updatedAt < query.before,
      )
      .map(({ type, id }) => ({ type, id }));
  }

  async saveCourseName(userId: string, course: CourseName): Promise<void> {
    this.failIfDown();
    this.courses.set(course.id, { ...course, userId });
  }

  async deleteCourseName(userId: string, courseId: string): Promise<void> {
    this.failIfDown();
    if (this.courses.get(courseId)?.userId === userId) this.courses.delete(courseId);
  }

  async courseNames(userId: string, courseIds: string[]): Promise<CourseName[]> {
    this.failIfDown();
    return courseIds.flatMap((id) => {
      const course = this.courses.get(id);
      return course && course.userId === userId ? [{ id: course.id, name: course.name, semester: course.semester }] : [];
    });
  }

  async listCourses(userId: string): Promise<CourseName[]> {
    this.failIfDown();
    return [...this.courses.values()]
      .filter((course) => course.userId === userId)
      .map(({ id, name, semester }) => ({ id, name, semester }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  private failIfDown(): void {
    if (this.failure) throw this.failure;
  }
}
