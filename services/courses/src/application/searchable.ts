import type { PayloadOf } from "@study/events/envelope";
import type { Course } from "../domain/course";

/** The indexing contract's record (study.search.v1.Searchable), as the events and SearchableSourceService carry it. */
export type Searchable = NonNullable<PayloadOf<"courseCreated">["searchable"]>;

/**
 * study.search.v1.SearchableType.SEARCHABLE_TYPE_COURSE. Use cases may not import @study/contracts (see
 * .dependency-cruiser.cjs), so this is the enum's wire number, which proto never changes: the type accepts only
 * numbers of the enum, and test/unit/searchable.test.ts pins this one to its name.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_COURSE: Searchable["type"] = 5;

/** The present ones of a course's optional facts, by name. */
function presentFacts(course: Course, names: readonly (keyof Course)[]): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const name of names) {
    const value = course[name];
    if (typeof value === "string") facts[name] = value;
  }
  return facts;
}

/** A course as search indexes it: the name as title; code, professor and semester as keywords. */
export function toSearchable(course: Course): Searchable {
  return {
    type: SEARCHABLE_TYPE_COURSE,
    id: course.id,
    userId: course.userId,
    courseId: course.id,
    title: course.name,
    keywords: [course.code, course.professor, course.semester].filter((keyword): keyword is string => keyword !== null),
    description: course.description ?? "",
    content: "",
    metadata: presentFacts(course, ["semester", "code", "professor", "color", "emoji"]),
    createdAt: course.createdAt,
    updatedAt: course.updatedAt,
  };
}
