import { AppError } from "@study/platform/errors";
import { isUuid as isCourseId, requireUserId } from "@study/platform/ids";
import type { Course } from "../domain/course";
import type { CourseRepository } from "./ports/course-repository.port";

export const MAX_BATCH = 500;

export class BatchGetCourses {
  constructor(private readonly courses: CourseRepository) {}

  /** The user's courses among the ids; unknown, malformed and foreign ids are left out. */
  async execute(userId: string, courseIds: string[]): Promise<Course[]> {
    requireUserId(userId);
    const ids = [...new Set(courseIds)].filter(isCourseId);
    if (ids.length > MAX_BATCH) throw AppError.validation("Too many ids", [{ field: "courseIds", message: `at most ${MAX_BATCH}` }]);
    return ids.length === 0 ? [] : this.courses.findManyOwned(userId, ids);
  }
}
