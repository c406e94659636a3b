import { enqueueEvents, type EventEnvelope } from "@study/events";
import type { CoursePage, CourseRepository } from "../../application/ports/course-repository.port";
import { nextVersion, type Course } from "../../domain/course";
import type { PrismaClient } from "../../generated/prisma/client";

export class PrismaCourseRepository implements CourseRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async insert(course: Course, events: EventEnvelope[]): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.course.create({ data: course });
      await enqueueEvents(tx, events);
    });
  }

  findOwned(userId: string, courseId: string): Promise<Course | null> {
    return this.prisma.course.findFirst({ where: { id: courseId, userId } });
  }

  /**
   * One statement for a page and its total (`count(*) over ()`): the list is the most frequent call of the
   * service, and a second round trip was a third of its cost. A page past the end has no row to carry the
   * total, so only then is it counted on its own.
   */
  async listOwned(userId: string, query: { limit: number; offset: number; semester?: string }): Promise<CoursePage> {
    const semester = query.semester ?? null;
    const rows = await this.prisma.$queryRaw<(Course & { total: bigint })[]>`
      SELECT id, user_id AS "userId", name, code, color, emoji, professor, semester, description,
             created_at AS "createdAt", updated_at AS "updatedAt", count(*) OVER () AS total
      FROM course
      WHERE user_id = ${userId} AND (${semester}::text IS NULL OR semester = ${semester}::text)
      ORDER BY created_at DESC, id ASC
      LIMIT ${query.limit} OFFSET ${query.offset}`;
    if (rows.length > 0) return { courses: rows.map(({ total: _total, ...course }) => course), total: Number(rows[0].total) };
    const total =
      query.offset === 0 ? 0 : await this.prisma.course.count({ where: { userId, ...(query.semester ? { semester: query.semester } : {}) } });
    return { courses: [], total };
  }

  findManyOwned(userId: string, courseIds: string[]): Promise<Course[]> {
    return this.prisma.course.findMany({ where: { userId, id: { in: courseIds } } });
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
