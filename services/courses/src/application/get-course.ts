import { AppError } from "@study/platform/errors";
import { isUuid as isCourseId, requireUserId } from "@study/platform/ids";
import type { Course } from "../domain/course";
import type { CourseRepository } from "./ports/course-repository.port";

export class GetCourse {
  constructor(private readonly courses: CourseRepository) {}

  /** The user's course; another user's course or an unknown id is NOT_FOUND alike. */
  async execute(userId: string, courseId: string): Promise<Course> {
    requireUserId(userId);
    const course = isCourseId(courseId) ? await this.courses.findOwned(userId, courseId) : null;
    if (!course) throw AppError.notFound("Course");
    return course;
  }
}
