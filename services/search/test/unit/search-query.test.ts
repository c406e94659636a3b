import { refusal } from "@study/testkit/refusal";
import { parseSearchQuery, parseSuggestionsQuery } from "../../src/domain/search-query";

const field = (code: string, name: string, message: string) => ({ kind: "validation", code, details: [{ field: name, message }] });

describe("parseSearchQuery", () => {
  it("fills the spec's defaults: limit 50, offset 0, minRelevance 0.1, every type, no range", () => {
    expect(parseSearchQuery({ query: "  photosynthesis  " })).toEqual({
      text: "photosynthesis",
      types: [],
      courseId: undefined,
      limit: 50,
      offset: 0,
      minRelevance: 0.1,
      startDate: undefined,
      endDate: undefined,
      createdFrom: undefined,
      createdBefore: undefined,
      difficulty: [],
      status: [],
    });
  });

  it("parses every parameter; blank list items are ignored and duplicates dropped; blank numbers take their defaults", () => {
    const query = parseSearchQuery({
      query: "cell",
      types: "note, quiz,,note",
      courseId: " c1 ",
      limit: "100",
      offset: "20",
      minRelevance: "0.75",
      startDate: "2025-01-31",
      endDate: "2025-02-28",
      difficulty: "EASY,HARD",
      status: "COMPLETED",
    });
    expect(query).toMatchObject({
      types: ["note", "quiz"],
      courseId: "c1",
      limit: 100,
      offset: 20,
      minRelevance: 0.75,
      startDate: "2025-01-31",
      endDate: "2025-02-28",
      difficulty: ["EASY", "HARD"],
      status: ["COMPLETED"],
    });
    expect(parseSearchQuery({ query: "x", limit: " ", offset: "", minRelevance: "" })).toMatchObject({ limit: 50, offset: 0, minRelevance: 0.1 });
    expect(parseSearchQuery({ query: "x", minRelevance: "0" }).minRelevance).toBe(0);
    expect(parseSearchQuery({ query: "x", minRelevance: "1" }).minRelevance).toBe(1);
    expect(parseSearchQuery({ query: "x", limit: "1" }).limit).toBe(1);
  });

  it("makes endDate inclusive: the range is [start of startDate, start of the day after endDate) in UTC", () => {
    const query = parseSearchQuery({ query: "x", startDate: "2025-03-01", endDate: "2025-03-01" });
    expect(query.createdFrom).toEqual(new Date("2025-03-01T00:00:00.000Z"));
    expect(query.createdBefore).toEqual(new Date("2025-03-02T00:00:00.000Z"));
    expect(parseSearchQuery({ query: "x", endDate: "2024-12-31" }).createdBefore).toEqual(new Date("2025-01-01T00:00:00.000Z"));
  });

  it("refuses a missing, blank or over-long query with VALIDATION_ERROR on query", async () => {
    expect(await refusal(() => parseSearchQuery({}))).toEqual(field("VALIDATION_ERROR", "query", "is required"));
    expect(await refusal(() => parseSearchQuery({ query: "   " }))).toEqual(field("VALIDATION_ERROR", "query", "is required"));
    expect(await refusal(() => parseSearchQuery({ query: "a".repeat(501) }))).toEqual(
      field("VALIDATION_ERROR", "query", "must be at most 500 characters"),
    );
    expect(parseSearchQuery({ query: ` ${"a".repeat(500)} ` }).text).toHaveLength(500);
  });

  it("refuses unknown types, difficulties and statuses with VALIDATION_ERROR naming the field", async () => {
    expect(await refusal(() => parseSearchQuery({ query: "x", types: "note,video" }))).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "types", message: expect.stringContaining("video") }],
    });
    expect(await refusal(() => parseSearchQuery({ query: "x", difficulty: "easy" }))).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "difficulty", message: expect.stringContaining("easy") }],
    });
    expect(await refusal(() => parseSearchQuery({ query: "x", status: "PENDING" }))).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "status", message: expect.stringContaining("PENDING") }],
    });
  });

  it.each(["0", "101", "-1", "1.5", "ten", "1e2"])("refuses limit %s with INVALID_LIMIT", async (limit) => {
    expect(await refusal(() => parseSearchQuery({ query: "x", limit }))).toEqual(
      field("INVALID_LIMIT", "limit", "must be an integer between 1 and 100"),
    );
  });

  it.each(["-1", "2.5", "abc"])("refuses offset %s with INVALID_OFFSET", async (offset) => {
    expect(await refusal(() => parseSearchQuery({ query: "x", offset }))).toEqual(
      field("INVALID_OFFSET", "offset", "must be an integer of 0 or more"),
    );
  });

  it.each(["-0.1", "1.01", "2", "high", "0.5.1"])("refuses minRelevance %s with INVALID_MIN_RELEVANCE", async (minRelevance) => {
    expect(await refusal(() => parseSearchQuery({ query: "x", minRelevance }))).toEqual(
      field("INVALID_MIN_RELEVANCE", "minRelevance", "must be a number between 0 and 1"),
    );
  });

  it.each([
    ["startDate", "2025-02-30"],
    ["startDate", "2025-1-05"],
    ["endDate", "yesterday"],
    ["endDate", "2025-13-01"],
    ["endDate", "2025-01-01T00:00:00Z"],
  ])("refuses %s %s with VALIDATION_ERROR", async (name, value) => {
    expect(await refusal(() => parseSearchQuery({ query: "x", [name]: value }))).toEqual(
      field("VALIDATION_ERROR", name, "must be a date written YYYY-MM-DD"),
    );
  });

  it("refuses a start after the end with INVALID_DATE_RANGE; the same day is a range", async () => {
    expect(await refusal(() => parseSearchQuery({ query: "x", startDate: "2025-03-02", endDate: "2025-03-01" }))).toEqual(
      field("INVALID_DATE_RANGE", "startDate", "must not be after endDate"),
    );
    expect(parseSearchQuery({ query: "x", startDate: "2024-02-29", endDate: "2024-02-29" }).startDate).toBe("2024-02-29");
  });
});

describe("parseSuggestionsQuery", () => {
  it("accepts 2-100 characters after trimming", () => {
    expect(parseSuggestionsQuery(" ph ")).toBe("ph");
    expect(parseSuggestionsQuery("a".repeat(100))).toHaveLength(100);
  });

  it("refuses under 2 characters (missing included) with QUERY_TOO_SHORT, over 100 with VALIDATION_ERROR", async () => {
    const tooShort = field("QUERY_TOO_SHORT", "query", "must be at least 2 characters");
    expect(await refusal(() => parseSuggestionsQuery(undefined))).toEqual(tooShort);
    expect(await refusal(() => parseSuggestionsQuery(" a "))).toEqual(tooShort);
    expect(await refusal(() => parseSuggestionsQuery("a".repeat(101)))).toEqual(field("VALIDATION_ERROR", "query", "must be at most 100 characters"));
  });
});
