import { SearchableListing } from "@study/platform/searchable-page";
import type { CourseRepository } from "./ports/course-repository.port";
import { toSearchable, type Searchable } from "./searchable";

/** SearchableSourceService.ListSearchables: every course (or one user's) as search indexes it, in id order. */
export class ListSearchables extends SearchableListing<Searchable> {
  constructor(courses: Pick<CourseRepository, "listPageAfter">) {
    super(async (range) => (await courses.listPageAfter(range)).map(toSearchable));
  }
}
