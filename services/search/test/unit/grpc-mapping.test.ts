import { indexing, search as api } from "@study/contracts";
import { fromSearchable } from "../../src/adapters/contracts/searchable-mapping";
import { toProtoFilters, toProtoSearchResponse } from "../../src/adapters/grpc/search-grpc-service";
import type { SearchAnswer } from "../../src/application/search";
import { GetSearchFilters } from "../../src/application/get-search-filters";
import { parseSearchQuery } from "../../src/domain/search-query";
import { createLogger } from "@study/platform";
import { InMemoryIndexLedger } from "./in-memory-index-ledger";

const { SearchableType } = indexing;
const created = new Date("2025-03-01T10:00:00.000Z");
const updated = new Date("2025-03-02T10:00:00.000Z");

function searchable(overrides: Partial<indexing.Searchable> = {}): indexing.Searchable {
  return {
    type: SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
    id: "f1",
    userId: "u1",
    courseId: "c1",
    title: "Cell cards",
    keywords: ["bio", " "],
    description: "Cells",
    content: "Mitochondria — powerhouse",
    difficulty: "HARD",
    status: undefined,
    metadata: { cardCount: "12" },
    createdAt: created,
    updatedAt: updated,
    ...overrides,
  };
}

describe("fromSearchable (indexing contract → domain record)", () => {
  it("maps every field; blank keywords and an empty course id are dropped", () => {
    expect(fromSearchable(searchable())).toEqual({
      record: {
        type: "flashcard_set",
        id: "f1",
        userId: "u1",
        courseId: "c1",
        title: "Cell cards",
        keywords: ["bio"],
        description: "Cells",
        content: "Mitochondria — powerhouse",
        difficulty: "HARD",
        status: undefined,
        metadata: { cardCount: "12" },
        createdAt: created,
        updatedAt: updated,
      },
    });
    expect(fromSearchable(searchable({ courseId: "" }))).toMatchObject({ record: { courseId: undefined } });
  });

  it("maps each proto type to the spec's name", () => {
    const types = [
      [SearchableType.SEARCHABLE_TYPE_NOTE, "note"],
      [SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET, "flashcard_set"],
      [SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE, "study_guide"],
      [SearchableType.SEARCHABLE_TYPE_QUIZ, "quiz"],
      [SearchableType.SEARCHABLE_TYPE_COURSE, "course"],
      [SearchableType.SEARCHABLE_TYPE_DOCUMENT, "document"],
      [SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT, "calendar_event"],
      [SearchableType.SEARCHABLE_TYPE_CHAT_SESSION, "chat_session"],
    ] as const;
    for (const [type, name] of types) expect(fromSearchable(searchable({ type }))).toMatchObject({ record: { type: name } });
  });

  it("leaves out a difficulty or status it does not know, and refuses what it cannot index", () => {
    expect(fromSearchable(searchable({ difficulty: "EXTREME", status: "PENDING" }))).toMatchObject({
      record: { difficulty: undefined, status: undefined },
    });
    expect(fromSearchable(searchable({ type: SearchableType.SEARCHABLE_TYPE_UNSPECIFIED }))).toEqual({ problem: "unknown searchable type 0" });
    expect(fromSearchable(searchable({ id: "" }))).toEqual({ problem: "flashcard_set without an id" });
    expect(fromSearchable(searchable({ userId: "" }))).toEqual({ problem: "flashcard_set f1 without a user id" });
    expect(fromSearchable(searchable({ updatedAt: undefined }))).toEqual({ problem: "flashcard_set f1 without created_at/updated_at" });
  });
});

describe("search responses in proto", () => {
  it("maps results (content: the excerpt without marks; metadata as a Struct), counts, the echo and pagination", () => {
    const answer: SearchAnswer = {
      results: [
        {
          record: {
            type: "note",
            id: "n1",
            userId: "u1",
            courseId: "c1",
            title: "Photosynthesis",
            keywords: [],
            description: "Summary",
            content: "long transcript",
            metadata: { duration: "300" },
            createdAt: created,
            updatedAt: updated,
          },
          relevanceScore: 0.8,
          snippet: "…the <mark>photosynthesis</mark> cycle…",
          highlights: ["photosynthesis"],
          courseName: "Biology",
        },
      ],
      totalCount: 3,
      suggestions: ["Photosynthesis"],
      searchTime: 4.2,
      resultsByType: { note: 2, quiz: 1 },
      query: parseSearchQuery({ query: "photosynthesis", types: "note,quiz", startDate: "2025-01-01", difficulty: "EASY", limit: "1" }),
      pagination: { limit: 1, offset: 0, hasMore: true },
    };
    const response = toProtoSearchResponse(answer);
    expect(response).toEqual({
      results: [
        {
          id: "n1",
          type: SearchableType.SEARCHABLE_TYPE_NOTE,
          title: "Photosynthesis",
          content: "…the photosynthesis cycle…",
          description: "Summary",
          relevanceScore: 0.8,
          snippet: "…the <mark>photosynthesis</mark> cycle…",
          highlights: ["photosynthesis"],
          courseId: "c1",
          courseName: "Biology",
          metadata: { duration: "300" },
          createdAt: created,
          updatedAt: updated,
        },
      ],
      totalCount: 3,
      suggestions: ["Photosynthesis"],
      searchTime: 4.2,
      resultsByType: { note: 2, quiz: 1 },
      query: "photosynthesis",
      filters: {
        types: [SearchableType.SEARCHABLE_TYPE_NOTE, SearchableType.SEARCHABLE_TYPE_QUIZ],
        courseId: undefined,
        minRelevance: 0.1,
        startDate: "2025-01-01",
        endDate: undefined,
        difficulty: ["EASY"],
        status: [],
      },
      limit: 1,
      offset: 0,
      hasMore: true,
    });
    // Survives the wire: the Struct and the map encode and decode.
    expect(api.SearchResponse.decode(api.SearchResponse.encode(response).finish())).toEqual(response);
  });

  it("maps the filters: icons for types, colours for difficulty and status, semesters for courses", async () => {
    const ledger = new InMemoryIndexLedger();
    await ledger.saveCourseName("u1", { id: "c1", name: "Biology", semester: "Fall" });
    const filters = toProtoFilters(await new GetSearchFilters(ledger, createLogger("test", "silent")).execute("u1"));
    expect(filters.types[0]).toEqual({ value: "note", label: "Notes", icon: "file-text" });
    expect(filters.courses).toEqual([{ value: "c1", label: "Biology", semester: "Fall" }]);
    expect(filters.difficulty[0]).toEqual({ value: "EASY", label: "Easy", color: "#22c55e" });
    expect(filters.status[2]).toEqual({ value: "FAILED", label: "Failed", color: "#ef4444" });
    expect(filters.dateRanges.map((range) => range.value)).toEqual(["today", "week", "month", "semester", "custom"]);
    expect(api.GetSearchFiltersResponse.decode(api.GetSearchFiltersResponse.encode(filters).finish())).toEqual(filters);
  });
});
