import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { Course } from "../domain/course";
import { toSearchable } from "./searchable";

export const SOURCE = "courses";

export function courseSummary(course: Course) {
  return {
    id: course.id,
    name: course.name,
    code: course.code ?? undefined,
    color: course.color ?? undefined,
    emoji: course.emoji ?? undefined,
    professor: course.professor ?? undefined,
    semester: course.semester ?? undefined,
  };
}

export const courseCreated = (course: Course): EventEnvelope =>
  createEvent(SOURCE, course.userId, {
    $case: "courseCreated",
    value: { course: courseSummary(course), description: course.description ?? undefined, searchable: toSearchable(course) },
  });

export const courseUpdated = (course: Course): EventEnvelope =>
  createEvent(SOURCE, course.userId, {
    $case: "courseUpdated",
    value: { course: courseSummary(course), description: course.description ?? undefined, searchable: toSearchable(course) },
  });

export const courseDeleted = (course: Course): EventEnvelope =>
  createEvent(SOURCE, course.userId, { $case: "courseDeleted", value: { courseId: course.id, name: course.name } });
