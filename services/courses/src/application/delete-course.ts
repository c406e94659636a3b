import { AppError } from "@study/platform";
import { courseDeleted } from "./course-events";
import { isCourseId, requireUserId } from "./ids";
import type { CourseRepository } from "./ports/course-repository.port";

export class DeleteCourse {
  constructor(private readonly courses: CourseRepository) {}

  async execute(userId: string, courseId: string): Promise<void> {
    requireUserId(userId);
    const deleted = isCourseId(courseId) && (await this.courses.deleteOwned(userId, courseId, [courseDeleted(userId, courseId)]));
    if (!deleted) throw AppError.notFound("Course");
  }
}
