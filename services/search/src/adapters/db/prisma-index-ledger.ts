import type { CourseName, IndexLedger, LedgerEntry, TransactionalIndexLedger } from "../../application/ports/index-ledger.port";
import { isRecordType, type RecordKey, type RecordType, type SearchRecord } from "../../domain/search-record";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

interface LedgerRow {
  type: string;
  id: string;
  userId: string;
  courseId: string | null;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** Rows whose type this version of search does not know are left out (an older build reading a newer ledger). */
function toKeys(rows: { type: string; id: string }[]): RecordKey[] {
  return rows.flatMap((row) => (isRecordType(row.type) ? [{ type: row.type, id: row.id }] : []));
}

const columns = (keys: RecordKey[]) => ({ types: keys.map((key) => key.type), ids: keys.map((key) => key.id) });

/** The ledger's statements on a client: the PrismaClient, or a transaction opened elsewhere. */
class PrismaLedgerStatements implements IndexLedger {
  constructor(protected readonly db: Prisma.TransactionClient) {}

  async lock(keys: RecordKey[]): Promise<LedgerEntry[]> {
    if (keys.length === 0) return [];
    const { types, ids } = columns(keys);
    // A stable order, so that two transactions locking overlapping pages cannot deadlock.
    const rows = await this.db.$queryRaw<LedgerRow[]>`
      SELECT type, id, user_id AS "userId", course_id AS "courseId", updated_at AS "updatedAt", deleted_at AS "deletedAt"
      FROM indexed_record
      WHERE (type, id) IN (SELECT * FROM unnest(${types}::text[], ${ids}::text[]))
      ORDER BY type, id
      FOR UPDATE`;
    return rows.flatMap((row) => (isRecordType(row.type) ? [{ ...row, type: row.type }] : []));
  }

  async recordApplied(records: SearchRecord[]): Promise<RecordKey[]> {
    if (records.length === 0) return [];
    const rows = records.map((record) => ({
      type: record.type,
      id: record.id,
      user_id: record.userId,
      course_id: record.courseId ?? null,
      updated_at: record.updatedAt.toISOString(),
    }));
    // One statement per batch (a reindex page is 500 records). The WHERE of the conflict branch repeats the
    // ordering rule for the one race the lock cannot cover: two first versions of a record that had no row to lock.
    const written = await this.db.$queryRaw<{ type: string; id: string }[]>`
      INSERT INTO indexed_record (type, id, user_id, course_id, updated_at)
      SELECT type, id, user_id, course_id, updated_at
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(type text, id text, user_id text, course_id text, updated_at timestamptz)
      ON CONFLICT (type, id) DO UPDATE
        SET user_id = EXCLUDED.user_id, course_id = EXCLUDED.course_id, updated_at = EXCLUDED.updated_at
        WHERE indexed_record.deleted_at IS NULL AND indexed_record.updated_at <= EXCLUDED.updated_at
      RETURNING type, id`;
    return toKeys(written);
  }

  async recordDeleted(entry: { type: RecordType; id: string; userId: string; courseId?: string }, at: Date): Promise<void> {
    await this.db.$executeRaw`
      INSERT INTO indexed_record (type, id, user_id, course_id, updated_at, deleted_at)
      VALUES (${entry.type}, ${entry.id}, ${entry.userId}, ${entry.courseId ?? null}, ${at}, ${at})
      ON CONFLICT (type, id) DO UPDATE SET deleted_at = COALESCE(indexed_record.deleted_at, EXCLUDED.deleted_at)`;
  }

  async recordCourseDeleted(userId: string, courseId: string, at: Date, types: readonly RecordType[]): Promise<RecordKey[]> {
    const rows = await this.db.$queryRaw<{ type: string; id: string }[]>`
      UPDATE indexed_record SET deleted_at = ${at}
      WHERE user_id = ${userId} AND course_id = ${courseId} AND deleted_at IS NULL AND type = ANY(${[...types]}::text[])
      RETURNING type, id`;
    return toKeys(rows);
  }

  async forget(keys: RecordKey[]): Promise<void> {
    if (keys.length === 0) return;
    const { types, ids } = columns(keys);
    await this.db.$executeRaw`
      DELETE FROM indexed_record WHERE (type, id) IN (SELECT * FROM unnest(${types}::text[], ${ids}::text[]))`;
    const courses = keys.filter((key) => key.type === "course").map((key) => key.id);
    if (courses.length > 0) await this.db.courseName.deleteMany({ where: { id: { in: courses } } });
  }

  async liveKeys(query: { userId?: string; types: readonly RecordType[]; before: Date }): Promise<RecordKey[]> {
    const rows = await this.db.indexedRecord.findMany({
      where: { userId: query.userId, type: { in: [...query.types] }, deletedAt: null, updatedAt: { lt: query.before } },
      select: { type: true, id: true },
    });
    return toKeys(rows);
  }

  async saveCourseName(userId: string, course: CourseName): Promise<void> {
    const data = { userId, name: course.name, semester: course.semester ?? null };
    await this.db.courseName.upsert({ where: { id: course.id }, create: { id: course.id, ...data }, update: data });
  }

  async deleteCourseName(userId: string, courseId: string): Promise<void> {
    await this.db.courseName.deleteMany({ where: { id: courseId, userId } });
  }

  courseNames(userId: string, courseIds: string[]): Promise<CourseName[]> {
    return this.db.courseName.findMany({ where: { userId, id: { in: courseIds } }, select: { id: true, name: true, semester: true } });
  }

  listCourses(userId: string): Promise<CourseName[]> {
    return this.db.courseName.findMany({
      where: { userId },
      select: { id: true, name: true, semester: true },
      orderBy: [{ name: "asc" }, { id: "asc" }],
    });
  }
}

/** Time a reindex page (a source page applied to the ledger and the index) may hold its transaction. */
const PAGE_TRANSACTION_TIMEOUT_MS = 120_000;

/** The ledger in search's PostgreSQL (`indexed_record`, `course_name`). */
export class PrismaIndexLedger extends PrismaLedgerStatements implements TransactionalIndexLedger<Prisma.TransactionClient> {
  constructor(private readonly prisma: PrismaClient) {
    super(prisma);
  }

  forTransaction(tx: Prisma.TransactionClient): IndexLedger {
    return new PrismaLedgerStatements(tx);
  }

  transaction<R>(work: (ledger: IndexLedger) => Promise<R>): Promise<R> {
    return this.prisma.$transaction((tx) => work(new PrismaLedgerStatements(tx)), { timeout: PAGE_TRANSACTION_TIMEOUT_MS, maxWait: 10_000 });
  }
}
