import { AppError } from "@study/platform/errors";
import { applyCourseChanges, type Course, type CourseChanges } from "../domain/course";
import { courseUpdated } from "./course-events";
import type { GetCourse } from "./get-course";
import type { CourseRepository } from "./ports/course-repository.port";

export class UpdateCourse {
  constructor(
    private readonly courses: CourseRepository,
    private readonly getCourse: GetCourse,
  ) {}

  async execute(userId: string, courseId: string, changes: CourseChanges): Promise<Course> {
    const current = await this.getCourse.execute(userId, courseId);
    const saved = await this.courses.update(applyCourseChanges(current, changes, new Date()), (course) => [courseUpdated(course)]);
    // Deleted concurrently between the read and the write: same answer as never having existed.
    if (!saved) throw AppError.notFound("Course");
    return saved;
  }
}
