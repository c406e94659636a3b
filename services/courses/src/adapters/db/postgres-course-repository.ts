import { pgTransactionalClient, PreparedStatement, type TransactionalClient } from "@study/db";
import type { Pool } from "pg";
import { enqueueEvents, type EventEnvelope } from "@study/events";
import type { CoursePage, CourseRepository } from "../../application/ports/course-repository.port";
import { nextVersion, type Course } from "../../domain/course";
import type { PrismaClient } from "../../generated/prisma/client";

const COURSE_COLUMNS = `id, user_id AS "userId", name, code, color, emoji, professor, semester, description,
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * One statement for a page and its total (`count(*) over ()`): the list is the most frequent call of the service,
 * and a second round trip was a third of its cost.
 */
const LIST_OWNED = new PreparedStatement<[userId: string, semester: string | null, limit: number, offset: number], Course & { total: string }>(
  "courses.list_owned",
  `SELECT ${COURSE_COLUMNS}, count(*) OVER () AS total
   FROM course
   WHERE user_id = $1 AND ($2::text IS NULL OR semester = $2::text)
   ORDER BY created_at DESC, id ASC
   LIMIT $3 OFFSET $4`,
);
const COUNT_OWNED = new PreparedStatement<[userId: string, semester: string | null], { total: string }>(
  "courses.count_owned",
  "SELECT count(*) AS total FROM course WHERE user_id = $1 AND ($2::text IS NULL OR semester = $2::text)",
);
const FIND_OWNED = new PreparedStatement<[userId: string, courseId: string], Course>(
  "courses.find_owned",
  `SELECT ${COURSE_COLUMNS} FROM course WHERE id = $2::uuid AND user_id = $1`,
);
const FIND_MANY_OWNED = new PreparedStatement<[userId: string, courseIds: string[]], Course>(
  "courses.find_many_owned",
  `SELECT ${COURSE_COLUMNS} FROM course WHERE id = ANY($2::uuid[]) AND user_id = $1`,
);

const INSERT_COURSE = `
  INSERT INTO course (id, user_id, name, code, color, emoji, professor, semester, description, created_at, updated_at)
  VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

/**
 * Courses in PostgreSQL. The reads every request makes (a page of the list, one course, a batch) are prepared
 * statements on the process's pool, and so is the creation, in one plain transaction with its outbox event (an
 * interactive transaction through Prisma cost several times as much: docs/PERFORMANCE.md); the rarer writes go
 * through Prisma, each in one transaction with its outbox events.
 */
export class PostgresCourseRepository implements CourseRepository {
  private readonly writes: TransactionalClient;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly pool: Pool,
  ) {
    this.writes = pgTransactionalClient(pool);
  }

  async insert(course: Course, events: EventEnvelope[]): Promise<void> {
    await this.writes.$transaction(async (tx) => {
      const { id, userId, name, code, color, emoji, professor, semester, description, createdAt, updatedAt } = course;
      await tx.$executeRawUnsafe(INSERT_COURSE, id, userId, name, code, color, emoji, professor, semester, description, createdAt, updatedAt);
      await enqueueEvents(tx, events);
    });
  }

  async findOwned(userId: string, courseId: string): Promise<Course | null> {
    const [course] = await FIND_OWNED.rows(this.pool, userId, courseId);
    return course ?? null;
  }

  /** A page past the end has no row to carry the total: only then is it counted on its own. */
  async listOwned(userId: string, query: { limit: number; offset: number; semester?: string }): Promise<CoursePage> {
    const semester = query.semester ?? null;
    const rows = await LIST_OWNED.rows(this.pool, userId, semester, query.limit, query.offset);
    if (rows.length > 0) return { courses: rows.map(({ total: _total, ...course }) => course), total: Number(rows[0].total) };
    const total = query.offset === 0 ? 0 : Number((await COUNT_OWNED.rows(this.pool, userId, semester))[0].total);
    return { courses: [], total };
  }

  findManyOwned(userId: string, courseIds: string[]): Promise<Course[]> {
    return FIND_MANY_OWNED.rows(this.pool, userId, courseIds);
  }

  async update(course: Course, events: (saved: Course) => EventEnvelope[]): Promise<Course | null> {
    const { id, userId, createdAt: _createdAt, ...changes } = course;
    return this.prisma.$transaction(async (tx) => {
      const [stored] = await tx.$queryRaw<{ updatedAt: Date }[]>`
        SELECT updated_at AS "updatedAt" FROM course WHERE id = ${id}::uuid AND user_id = ${userId} FOR UPDATE`;
      if (!stored) return null;
      const saved = await tx.course.update({ where: { id }, data: { ...changes, updatedAt: nextVersion(stored.updatedAt, course.updatedAt) } });
      await enqueueEvents(tx, events(saved));
      return saved;
    });
  }

  async deleteOwned(userId: string, courseId: string, events: EventEnvelope[]): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.course.deleteMany({ where: { id: courseId, userId } });
      if (count === 0) return false;
      await enqueueEvents(tx, events);
      return true;
    });
  }

  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Course[]> {
    return this.prisma.course.findMany({
      where: { ...(query.userId === undefined ? {} : { userId: query.userId }), ...(query.afterId === null ? {} : { id: { gt: query.afterId } }) },
      orderBy: { id: "asc" },
      take: query.limit,
    });
  }
}
