import type { Schema } from "@study/sdk";
import { api, data, StudyApiError } from "../../lib/api";

export type Course = Schema<"Course">;
export type CourseNote = Schema<"Note">;

/** The course fields a person edits (all but `name` may be empty: null on the wire). */
export interface CourseFields {
  name: string;
  code: string | null;
  color: string | null;
  emoji: string | null;
  professor: string | null;
  semester: string | null;
  description: string | null;
}

/** The page size of the courses list (the API's maximum). */
export const COURSES_PAGE = 100;

/**
 * Query keys: the list under ["courses", "list"], a course under ["courses", id] and its notes under
 * ["courses", id, "notes"], so invalidating ["courses", id] (the notes pages do, after deleting a note) refreshes both.
 */
export const courseKeys = {
  all: ["courses"] as const,
  list: ["courses", "list"] as const,
  course: (id: string) => ["courses", id] as const,
  notes: (id: string) => ["courses", id, "notes"] as const,
};

export const fetchCoursesPage = (offset: number) => data(api.GET("/api/courses", { params: { query: { limit: COURSES_PAGE, offset } } }));

export const fetchCourse = (id: string) => data(api.GET("/api/courses/{id}", { params: { path: { id } } }));

export const fetchCourseNotes = (courseId: string) => data(api.GET("/api/courses/{courseId}/notes", { params: { path: { courseId } } }));

export const createCourse = (body: CourseFields) => data(api.POST("/api/courses", { body }));

export const updateCourse = (id: string, body: Partial<CourseFields>) => data(api.PATCH("/api/courses/{id}", { params: { path: { id } }, body }));

export const deleteCourse = (id: string) => data(api.DELETE("/api/courses/{id}", { params: { path: { id } } }));

/** A 404: the course is not the user's, or no longer exists. */
export const isNotFound = (error: unknown) => error instanceof StudyApiError && error.status === 404;

/** The API's message about one field of a VALIDATION_ERROR. */
export const problemOf = (error: unknown, field: string) => (error instanceof StudyApiError ? error.fieldProblem(field) : undefined);
