import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import type { CoursePage, CourseRepository } from "./ports/course-repository.port";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export class ListCourses {
  constructor(private readonly courses: CourseRepository) {}

  async execute(
    userId: string,
    query: { limit?: number; offset?: number; semester?: string },
  ): Promise<CoursePage & { limit: number; offset: number }> {
    requireUserId(userId);
    const limit = query.limit || DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    if (limit < 1 || limit > MAX_PAGE_SIZE)
      throw AppError.validation("Invalid limit", [{ field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }]);
    if (offset < 0) throw AppError.validation("Invalid offset", [{ field: "offset", message: "must be 0 or more" }]);
    const page = await this.courses.listOwned(userId, { limit, offset, semester: query.semester });
    return { ...page, limit, offset };
  }
}
