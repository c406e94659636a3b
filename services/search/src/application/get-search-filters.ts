import type { Logger } from "@study/platform";
import { requireUserId } from "@study/platform/ids";
import {
  DATE_RANGE_OPTIONS,
  DIFFICULTY_OPTIONS,
  STATUS_OPTIONS,
  TYPE_OPTIONS,
  type ColoredOption,
  type DateRangeOption,
  type TypeOption,
} from "../domain/search-filters";
import type { Difficulty, RecordStatus } from "../domain/search-record";
import { failingAs } from "./index-failure";
import type { CourseName, IndexLedger } from "./ports/index-ledger.port";

export interface SearchFilters {
  types: readonly TypeOption[];
  /** The user's courses (value: id, label: name) with their semester. */
  courses: { value: string; label: string; semester?: string }[];
  difficulty: readonly ColoredOption<Difficulty>[];
  status: readonly ColoredOption<RecordStatus>[];
  dateRanges: readonly DateRangeOption[];
}

/** GET /api/search/filters: the fixed choices and the user's courses; a database failure is FILTERS_FAILED. */
export class GetSearchFilters {
  constructor(
    private readonly ledger: IndexLedger,
    private readonly logger: Logger,
  ) {}

  async execute(userId: string): Promise<SearchFilters> {
    requireUserId(userId);
    const courses = await failingAs(this.logger, "FILTERS_FAILED", "Loading the search filters failed", { userId }, () =>
      this.ledger.listCourses(userId),
    );
    return {
      types: TYPE_OPTIONS,
      courses: courses.map(courseOption),
      difficulty: DIFFICULTY_OPTIONS,
      status: STATUS_OPTIONS,
      dateRanges: DATE_RANGE_OPTIONS,
    };
  }
}

function courseOption(course: CourseName): SearchFilters["courses"][number] {
  return course.semester ? { value: course.id, label: course.name, semester: course.semester } : { value: course.id, label: course.name };
}
