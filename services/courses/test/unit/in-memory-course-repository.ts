import type { EventEnvelope } from "@study/events/envelope";
import type { CoursePage, CourseRepository } from "../../src/application/ports/course-repository.port";
import { nextVersion, type Course } from "../../src/domain/course";

/** Newest first, then by id: the order of PostgresCourseRepository.listOwned. */
const newestFirst = (a: Course, b: Course) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The repository port over a Map. `outbox` keeps the events each write was given, in order, as the Prisma
 * adapter stores them in the same transaction as the change.
 */
export class InMemoryCourseRepository implements CourseRepository {
  readonly outbox: EventEnvelope[] = [];
  private readonly rows = new Map<string, Course>();

  /** Every stored course, newest first. */
  all(): Course[] {
    return [...this.rows.values()].map((course) => ({ ...course })).sort(newestFirst);
  }

  async insert(course: Course, events: EventEnvelope[]): Promise<void> {
    if (this.rows.has(course.id)) throw new Error(`duplicate course id ${course.id}`);
    this.rows.set(course.id, { ...course });
    this.outbox.push(...events);
  }

  async findOwned(userId: string, courseId: string): Promise<Course | null> {
    const course = this.rows.get(courseId);
    return course && course.userId === userId ? { ...course } : null;
  }

  async listOwned(userId: string, query: { limit: number; offset: number; semester?: string }): Promise<CoursePage> {
    const matching = this.all().filter((course) => course.userId === userId && (query.semester === undefined || course.semester === query.semester));
    return { courses: matching.slice(query.offset, query.offset + query.limit), total: matching.length };
  }

  async findManyOwned(userId: string, courseIds: string[]): Promise<Course[]> {
    const wanted = new Set(courseIds);
    return this.all().filter((course) => course.userId === userId && wanted.has(course.id));
  }

  async update(course: Course, events: (saved: Course) => EventEnvelope[]): Promise<Course | null> {
    const stored = this.rows.get(course.id);
    // As the adapter's locked read: a course that is gone or not the user's stays untouched, and nothing is announced.
    if (!stored || stored.userId !== course.userId) return null;
    const saved = { ...course, createdAt: stored.createdAt, updatedAt: nextVersion(stored.updatedAt, course.updatedAt) };
    this.rows.set(course.id, saved);
    this.outbox.push(...events({ ...saved }));
    return { ...saved };
  }

  async deleteOwned(userId: string, courseId: string, events: EventEnvelope[]): Promise<boolean> {
    const stored = this.rows.get(courseId);
    if (!stored || stored.userId !== userId) return false;
    this.rows.delete(courseId);
    this.outbox.push(...events);
    return true;
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Course[]> {
    const { userId, afterId } = query;
    return [...this.rows.values()]
      .filter((course) => (userId === undefined || course.userId === userId) && (afterId === null || course.id > afterId))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, query.limit)
      .map((course) => ({ ...course }));
  }
}
