import { indexing } from "@study/contracts";
import { SEARCHABLE_TYPE_COURSE, toSearchable } from "../../src/application/searchable";
import type { Course } from "../../src/domain/course";

const createdAt = new Date("2026-05-01T08:00:00Z");
const updatedAt = new Date("2026-05-02T09:30:00Z");
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
  createdAt,
  updatedAt,
};

describe("a course as search indexes it", () => {
  it("is of the contract's COURSE type", () => {
    expect(SEARCHABLE_TYPE_COURSE).toBe(indexing.SearchableType.SEARCHABLE_TYPE_COURSE);
  });

  it("has the name as title, code, professor and semester as keywords, the facts as metadata, its own id as course", () => {
    expect(toSearchable(full)).toEqual({
      type: indexing.SearchableType.SEARCHABLE_TYPE_COURSE,
      id: full.id,
      userId: "alice",
      courseId: full.id,
      title: "Cell Biology",
      keywords: ["BIO101", "Dr. Hooke", "Fall 2026"],
      description: "Cells and membranes",
      content: "",
      metadata: { semester: "Fall 2026", code: "BIO101", professor: "Dr. Hooke", color: "#22AA88", emoji: "🧬" },
      createdAt,
      updatedAt,
    });
  });

  it("leaves out what the course does not have", () => {
    const bare: Course = { ...full, code: null, color: null, emoji: null, professor: null, semester: null, description: null };
    expect(toSearchable(bare)).toMatchObject({ keywords: [], description: "", metadata: {} });
  });

  it("survives the wire unchanged", () => {
    const searchable = toSearchable(full);
    expect(indexing.Searchable.decode(indexing.Searchable.encode(searchable).finish())).toEqual(searchable);
  });
});
