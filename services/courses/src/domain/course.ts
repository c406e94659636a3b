import { AppError, type FieldViolation } from "@study/platform/errors";

/** A course as the domain sees it. Optional text fields are null when not set. */
export interface Course {
  id: string;
  userId: string;
  name: string;
  code: string | null;
  color: string | null;
  emoji: string | null;
  professor: string | null;
  semester: string | null;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const OPTIONAL_COURSE_FIELDS = ["code", "color", "emoji", "professor", "semester", "description"] as const;
export type OptionalCourseField = (typeof OPTIONAL_COURSE_FIELDS)[number];
export type CourseAttributes = Pick<Course, "name" | OptionalCourseField>;

/** Maximum lengths (characters) of the course's text fields. */
export const COURSE_LIMITS: Record<keyof CourseAttributes, number> = {
  name: 255,
  code: 50,
  color: 50,
  emoji: 16,
  professor: 255,
  semester: 100,
  description: 2000,
};

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const COLOR_NAME = /^[a-zA-Z]+$/;

/** Checks the invariants of a course's attributes; every problem becomes one {field, message}. */
export function validateCourseAttributes(attributes: CourseAttributes): void {
  const violations: FieldViolation[] = [];
  if (attributes.name.trim().length === 0) violations.push({ field: "name", message: "must not be empty" });
  for (const [field, max] of Object.entries(COURSE_LIMITS) as [keyof CourseAttributes, number][]) {
    const value = attributes[field];
    if (value !== null && [...value].length > max) violations.push({ field, message: `must be at most ${max} characters` });
  }
  const { color } = attributes;
  if (color !== null && !HEX_COLOR.test(color) && !COLOR_NAME.test(color)) {
    violations.push({ field: "color", message: "must be a hex code (#RRGGBB) or a color name" });
  }
  if (violations.length > 0) throw AppError.validation("Invalid course", violations);
}

/** Trims text and turns blank optional values into null. */
export function normaliseAttributes(attributes: CourseAttributes): CourseAttributes {
  const clean = (value: string | null) => {
    const trimmed = value?.trim() ?? "";
    return trimmed.length === 0 ? null : trimmed;
  };
  return {
    name: attributes.name.trim(),
    code: clean(attributes.code),
    color: clean(attributes.color),
    emoji: clean(attributes.emoji),
    professor: clean(attributes.professor),
    semester: clean(attributes.semester),
    description: clean(attributes.description),
  };
}

export function createCourse(id: string, userId: string, attributes: CourseAttributes, now: Date): Course {
  const normalised = normaliseAttributes(attributes);
  validateCourseAttributes(normalised);
  return { id, userId, ...normalised, createdAt: now, updatedAt: now };
}

export interface CourseChanges {
  /** Fields to set; undefined leaves a field unchanged. */
  set: Partial<CourseAttributes>;
  /** Optional fields to clear. */
  clear: OptionalCourseField[];
}

export function applyCourseChanges(course: Course, changes: CourseChanges, now: Date): Course {
  const clearable = new Set<string>(OPTIONAL_COURSE_FIELDS);
  const invalid: string[] = changes.clear.filter((field) => !clearable.has(field));
  if (invalid.length > 0) {
    throw AppError.validation(
      "Invalid course",
      invalid.map((field) => ({ field, message: field === "name" ? "is required and cannot be cleared" : "is not a course field" })),
    );
  }
  const merged: CourseAttributes = { ...pickAttributes(course) };
  for (const [field, value] of Object.entries(changes.set) as [keyof CourseAttributes, string | null | undefined][]) {
    if (value !== undefined) (merged as Record<string, string | null>)[field] = value;
  }
  for (const field of changes.clear) merged[field] = null;
  const normalised = normaliseAttributes(merged);
  validateCourseAttributes(normalised);
  return { ...course, ...normalised, updatedAt: nextVersion(course.updatedAt, now) };
}

/**
 * A changed course's updatedAt: now, but always after the previous one (search keeps a record's newest
 * version by updatedAt, so a change within the same millisecond, or after the clock stepped back, must still be newer).
 */
export function nextVersion(previous: Date, now: Date): Date {
  return now.getTime() > previous.getTime() ? now : new Date(previous.getTime() + 1);
}

function pickAttributes(course: Course): CourseAttributes {
  const { name, code, color, emoji, professor, semester, description } = course;
  return { name, code, color, emoji, professor, semester, description };
}
