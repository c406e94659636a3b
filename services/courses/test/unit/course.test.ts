import { AppError } from "@study/platform";
import { applyCourseChanges, createCourse } from "../../src/domain/course";

const attributes = { name: "Biology", code: null, color: null, emoji: null, professor: null, semester: null, description: null };
const now = new Date("2026-01-01T00:00:00Z");

function violations(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).details;
  }
  throw new Error("expected a validation error");
}

describe("course rules", () => {
  it("trims text and turns blank optional fields into null", () => {
    const course = createCourse("id", "user", { ...attributes, name: "  Biology  ", professor: "   ", code: " BIO101 " }, now);
    expect(course).toMatchObject({ name: "Biology", professor: null, code: "BIO101", createdAt: now, updatedAt: now });
  });

  it("requires a name of 1-255 characters", () => {
    expect(violations(() => createCourse("id", "u", { ...attributes, name: "   " }, now))).toEqual([{ field: "name", message: "must not be empty" }]);
    expect(violations(() => createCourse("id", "u", { ...attributes, name: "x".repeat(256) }, now))).toEqual([
      { field: "name", message: "must be at most 255 characters" },
    ]);
    expect(createCourse("id", "u", { ...attributes, name: "x".repeat(255) }, now).name).toHaveLength(255);
  });

  it("accepts hex codes and color names, rejects anything else", () => {
    expect(createCourse("id", "u", { ...attributes, color: "#3B82F6" }, now).color).toBe("#3B82F6");
    expect(createCourse("id", "u", { ...attributes, color: "teal" }, now).color).toBe("teal");
    expect(violations(() => createCourse("id", "u", { ...attributes, color: "#12" }, now))[0].field).toBe("color");
  });

  it("applies partial changes, clears optional fields, and refuses to clear the name", () => {
    const course = createCourse("id", "u", { ...attributes, professor: "Dr. Ada", semester: "Fall 2026" }, now);
    const later = new Date("2026-02-01T00:00:00Z");
    const updated = applyCourseChanges(course, { set: { name: "Biology II" }, clear: ["professor"] }, later);
    expect(updated).toMatchObject({ name: "Biology II", professor: null, semester: "Fall 2026", createdAt: now, updatedAt: later });
    expect(violations(() => applyCourseChanges(course, { set: {}, clear: ["name" as never] }, later))).toEqual([
      { field: "name", message: "is required and cannot be cleared" },
    ]);
  });
});
