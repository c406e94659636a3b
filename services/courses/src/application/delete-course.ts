import { AppError } from "@study/platform/errors";
import { courseDeleted } from "./course-events";
import type { GetCourse } from "./get-course";
import type { CourseRepository } from "./ports/course-repository.port";

export class DeleteCourse {
  constructor(
    private readonly courses: CourseRepository,
    private readonly getCourse: GetCourse,
  ) {}

  async execute(userId: string, courseId: string): Promise<void> {
    const course = await this.getCourse.execute(userId, courseId);
    // Deleted concurrently between the read and the delete: same answer as never having existed.
    if (!(await this.courses.deleteOwned(userId, courseId, [courseDeleted(course)]))) throw AppError.notFound("Course");
  }
}
