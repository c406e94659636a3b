import { indexing, search } from "@study/contracts";
import { AppError } from "@study/platform";
import { errorBody } from "../../src/http/envelope";
import { resultTypeJson, searchFiltersJson, searchResponseJson, searchResultJson } from "../../src/routes/search";

const { SearchableType } = indexing;
const created = new Date("2026-11-20T10:00:00.000Z");
const updated = new Date("2026-11-21T11:30:00.000Z");

const noteResult: search.SearchResult = {
  id: "0190f3c1-7d2a-7c4e-9b1a-3f2d4c5e6a7b",
  type: SearchableType.SEARCHABLE_TYPE_NOTE,
  title: "Photosynthesis lecture",
  content: "…light reactions in the thylakoid…",
  description: "Summary",
  relevanceScore: 0.82,
  snippet: "…light <mark>reactions</mark>…",
  highlights: ["reactions"],
  courseId: "course-1",
  courseName: "Biology",
  metadata: { transcriptionStatus: "COMPLETED", duration: "754" },
  createdAt: created,
  updatedAt: updated,
};

describe("search answers in the spec's REST shapes", () => {
  it("writes every record type in lower case, as the spec names them", () => {
    expect(
      [
        SearchableType.SEARCHABLE_TYPE_NOTE,
        SearchableType.SEARCHABLE_TYPE_FLASHCARD_SET,
        SearchableType.SEARCHABLE_TYPE_STUDY_GUIDE,
        SearchableType.SEARCHABLE_TYPE_QUIZ,
        SearchableType.SEARCHABLE_TYPE_COURSE,
        SearchableType.SEARCHABLE_TYPE_DOCUMENT,
        SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
        SearchableType.SEARCHABLE_TYPE_CHAT_SESSION,
      ].map(resultTypeJson),
    ).toEqual(["note", "flashcard_set", "study_guide", "quiz", "course", "document", "calendar_event", "chat_session"]);
    expect(() => resultTypeJson(SearchableType.SEARCHABLE_TYPE_UNSPECIFIED)).toThrow(AppError);
  });

  it("maps a result with ISO timestamps, its metadata object and its course; a record without a course has no course fields", () => {
    expect(searchResultJson(noteResult)).toEqual({
      id: noteResult.id,
      title: "Photosynthesis lecture",
      type: "note",
      content: "…light reactions in the thylakoid…",
      description: "Summary",
      relevanceScore: 0.82,
      snippet: "…light <mark>reactions</mark>…",
      highlights: ["reactions"],
      courseId: "course-1",
      courseName: "Biology",
      metadata: { transcriptionStatus: "COMPLETED", duration: "754" },
      createdAt: "2026-11-20T10:00:00.000Z",
      updatedAt: "2026-11-21T11:30:00.000Z",
    });
    const withoutCourse = JSON.parse(
      JSON.stringify(searchResultJson({ ...noteResult, courseId: undefined, courseName: undefined, metadata: undefined })),
    ) as Record<string, unknown>;
    expect(Object.keys(withoutCourse)).not.toContain("courseId");
    expect(Object.keys(withoutCourse)).not.toContain("courseName");
    expect(withoutCourse.metadata).toEqual({});
  });

  it("answers the whole search with counts, the applied filters and offset pagination", () => {
    const data = searchResponseJson({
      results: [noteResult],
      totalCount: 3,
      suggestions: ["photosynthesis"],
      searchTime: 4.2,
      resultsByType: { note: 2, quiz: 1 },
      query: "reactions",
      filters: {
        types: [SearchableType.SEARCHABLE_TYPE_NOTE, SearchableType.SEARCHABLE_TYPE_QUIZ],
        courseId: "course-1",
        minRelevance: 0.1,
        startDate: "2026-11-01",
        endDate: "2026-11-30",
        difficulty: [],
        status: ["COMPLETED"],
      },
      limit: 1,
      offset: 0,
      hasMore: true,
    });
    expect(data).toMatchObject({
      totalCount: 3,
      suggestions: ["photosynthesis"],
      searchTime: 4.2,
      resultsByType: { note: 2, quiz: 1 },
      query: "reactions",
      filters: {
        types: ["note", "quiz"],
        courseId: "course-1",
        minRelevance: 0.1,
        startDate: "2026-11-01",
        endDate: "2026-11-30",
        difficulty: [],
        status: ["COMPLETED"],
      },
      pagination: { limit: 1, offset: 0, hasMore: true },
    });
    expect(data.results.map((result) => result.type)).toEqual(["note"]);
  });

  it("answers the filter lists with a semester per course (null when the course has none)", () => {
    expect(
      searchFiltersJson({
        types: [{ value: "note", label: "Notes", icon: "file-text" }],
        courses: [
          { value: "course-1", label: "Biology", semester: "Fall 2026" },
          { value: "course-2", label: "History" },
        ],
        difficulty: [{ value: "EASY", label: "Easy", color: "#22c55e" }],
        status: [{ value: "COMPLETED", label: "Completed", color: "#22c55e" }],
        dateRanges: [{ value: "today", label: "Today" }],
      }),
    ).toEqual({
      types: [{ value: "note", label: "Notes", icon: "file-text" }],
      courses: [
        { value: "course-1", label: "Biology", semester: "Fall 2026" },
        { value: "course-2", label: "History", semester: null },
      ],
      difficulty: [{ value: "EASY", label: "Easy", color: "#22c55e" }],
      status: [{ value: "COMPLETED", label: "Completed", color: "#22c55e" }],
      dateRanges: [{ value: "today", label: "Today" }],
    });
  });

  it("keeps a service's own internal code (SEARCH_FAILED, …) with a generic message; anything else stays INTERNAL_ERROR", () => {
    expect(errorBody(new AppError("internal", "SEARCH_FAILED", "index down: connection refused to 10.0.0.7"))).toEqual({
      status: 500,
      body: { success: false, error: "An unexpected error occurred", code: "SEARCH_FAILED" },
    });
    expect(errorBody(AppError.internal("secret detail"))).toEqual({
      status: 500,
      body: { success: false, error: "An unexpected error occurred", code: "INTERNAL_ERROR" },
    });
  });
});
