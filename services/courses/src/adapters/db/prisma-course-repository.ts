import { enqueueEvents, type EventEnvelope } from "@study/events";
import type { CoursePage, CourseRepository } from "../../application/ports/course-repository.port";
import type { Course } from "../../domain/course";
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

  async listOwned(userId: string, query: { limit: number; offset: number; semester?: string }): Promise<CoursePage> {
    const where = { userId, ...(query.semester ? { semester: query.semester } : {}) };
    const [courses, total] = await Promise.all([
      this.prisma.course.findMany({
        where,
        orderBy: [{ createdAt: "desc" }, { id: "asc" }],
        take: query.limit,
        skip: query.offset,
      }),
      this.prisma.course.count({ where }),
    ]);
    return { courses, total };
  }

  findManyOwned(userId: string, courseIds: string[]): Promise<Course[]> {
    return this.prisma.course.findMany({ where: { userId, id: { in: courseIds } } });
  }

  async update(course: Course, events: EventEnvelope[]): Promise<void> {
    const { id, userId, createdAt: _createdAt, ...changes } = course;
    await this.prisma.$transaction(async (tx) => {
      await tx.course.updateMany({ where: { id, userId }, data: changes });
      await enqueueEvents(tx, events);
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
}
