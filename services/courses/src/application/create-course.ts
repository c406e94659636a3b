import { newId } from "@study/grpc/ids";
import { createCourse, type Course, type CourseAttributes } from "../domain/course";
import { courseCreated } from "./course-events";
import { requireUserId } from "@study/platform/ids";
import type { CourseRepository } from "./ports/course-repository.port";

export class CreateCourse {
  constructor(private readonly courses: CourseRepository) {}

  async execute(userId: string, attributes: CourseAttributes): Promise<Course> {
    const course = createCourse(newId(), requireUserId(userId), attributes, new Date());
    await this.courses.insert(course, [courseCreated(course)]);
    return course;
  }
}
