import type { EventEnvelope } from "@study/events/envelope";
import type { Course } from "../../domain/course";

export interface CoursePage {
  courses: Course[];
  total: number;
}

/**
 * Persistence of courses. Every write takes the events it causes: the adapter stores them in the outbox in
 * the same transaction as the change.
 */
export interface CourseRepository {
  insert(course: Course, events: EventEnvelope[]): Promise<void>;
  /** The course if it exists and belongs to the user. */
  findOwned(userId: string, courseId: string): Promise<Course | null>;
  listOwned(userId: string, query: { limit: number; offset: number; semester?: string }): Promise<CoursePage>;
  findManyOwned(userId: string, courseIds: string[]): Promise<Course[]>;
  /**
   * Stores the changed course with a new updatedAt (the course's, or just after the stored one if that is not
   * older, so that concurrent changes keep their order) and the events `events` builds from the course as stored.
   * Returns the stored course; null when the user's course no longer exists.
   */
  update(course: Course, events: (saved: Course) => EventEnvelope[]): Promise<Course | null>;
  /** Deletes the user's course; false when there was none. */
  deleteOwned(userId: string, courseId: string, events: EventEnvelope[]): Promise<boolean>;
  /** Up to `limit` courses (of one user, or of all when userId is absent) with ids after `afterId`, in id order. */
  listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Course[]>;
}
