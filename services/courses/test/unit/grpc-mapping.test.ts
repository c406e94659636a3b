import { courseSummary } from "../../src/application/course-events";
import { toProtoCourse } from "../../src/adapters/grpc/courses-grpc-service";
import type { Course } from "../../src/domain/course";

const at = new Date("2026-05-01T08:00:00Z");
const later = new Date("2026-05-02T09:30:00Z");
const full: Course = {
  id: "0196a000-0000-7000-8000-000000000001",
  userId: "alice",
  name: "Cell Biology",
  code: "BIO101",
  color: "#22AA88",
  emoji: "🧬",
  professor: "Dr. Hooke",
  semester: "Fall 2026",
  description: "Cells and membranes",
  createdAt: at,
  updatedAt: later,
};
const bare: Course = { ...full, code: null, color: null, emoji: null, professor: null, semester: null, description: null };

describe("gRPC mapping of courses", () => {
  it("sends every field of a course", () => {
    expect(toProtoCourse(full)).toEqual(full);
  });

  it("leaves unset optional fields absent (proto3 optional), never as empty strings", () => {
    const proto = toProtoCourse(bare);
    expect(proto).toEqual({ id: full.id, userId: "alice", name: "Cell Biology", createdAt: at, updatedAt: later });
    for (const field of ["code", "color", "emoji", "professor", "semester", "description"] as const) {
      expect(proto[field]).toBeUndefined();
    }
  });

  it("summarises a course for other services without its owner, description or times", () => {
    expect(courseSummary(full)).toEqual({
      id: full.id,
      name: "Cell Biology",
      code: "BIO101",
      color: "#22AA88",
      emoji: "🧬",
      professor: "Dr. Hooke",
      semester: "Fall 2026",
    });
    expect(courseSummary(bare)).toEqual({
      id: full.id,
      name: "Cell Biology",
      code: undefined,
      color: undefined,
      emoji: undefined,
      professor: undefined,
      semester: undefined,
    });
  });
});
