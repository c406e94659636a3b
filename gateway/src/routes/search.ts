import { indexing, type search as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { sendData } from "../http/envelope";
import { singleParam } from "../http/query";
import { iso, restEnum } from "./shared/mappers";

/** The spec's record types, as the REST API writes them: `SEARCHABLE_TYPE_FLASHCARD_SET` → `flashcard_set`. */
const resultTypes = restEnum(indexing.SearchableType, "SEARCHABLE_TYPE", "lower");

/**
 * A query parameter forwarded as the client wrote it: the search service owns the rules (ranges, formats,
 * defaults) and answers their codes, so the gateway checks only that the parameter is one string.
 */
const forwarded = (description: string) => singleParam().optional().describe(description);

const searchQuery = z.object({
  query: forwarded("Required: the words to search for, 1-500 characters (missing, blank or longer: 400 VALIDATION_ERROR)"),
  types: forwarded(`Comma list of ${resultTypes.names.join(", ")} (default: every type)`),
  courseId: forwarded("Only records of this course"),
  limit: forwarded("1-100, default 50 (else 400 INVALID_LIMIT)"),
  offset: forwarded("0 or more, default 0 (else 400 INVALID_OFFSET)"),
  minRelevance: forwarded("0.0-1.0, default 0.1: results scoring lower are left out (else 400 INVALID_MIN_RELEVANCE)"),
  startDate: forwarded("YYYY-MM-DD: created on or after this day (UTC)"),
  endDate: forwarded("YYYY-MM-DD: created on or before this day (UTC), the whole day included; before startDate: 400 INVALID_DATE_RANGE"),
  difficulty: forwarded("Comma list of EASY, MEDIUM, HARD"),
  status: forwarded("Comma list of COMPLETED, PROCESSING, FAILED"),
});

const suggestionsQuery = z.object({
  query: forwarded("Required: what the user typed so far, 2-100 characters (missing or shorter: 400 QUERY_TOO_SHORT; longer: 400 VALIDATION_ERROR)"),
});

const resultType = z.enum(resultTypes.names);

const searchResultSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    type: resultType,
    content: z.string().describe("The matched excerpt"),
    description: z.string(),
    relevanceScore: z.number().min(0).max(1).describe("0-1, comparable across types (services/search/README.md)"),
    snippet: z.string(),
    highlights: z.array(z.string()),
    courseId: z.string().optional(),
    courseName: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).describe("Type-specific facts (counts, a course's semester, …)"),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "SearchResult" });

const searchAnswer = z.object({
  results: z.array(searchResultSchema),
  totalCount: z.number().int().describe("Results above minRelevance, before limit and offset"),
  suggestions: z.array(z.string()),
  searchTime: z.number().describe("Milliseconds"),
  resultsByType: z.record(z.string(), z.number().int()).describe("Matches per type before the limit; types without a match are absent"),
  query: z.string(),
  filters: z
    .object({
      types: z.array(resultType),
      courseId: z.string().optional(),
      minRelevance: z.number(),
      startDate: z.iso.date().optional(),
      endDate: z.iso.date().optional(),
      difficulty: z.array(z.string()),
      status: z.array(z.string()),
    })
    .describe("The filters as applied, defaults filled in"),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), hasMore: z.boolean() }),
});

const option = { value: z.string(), label: z.string() };
const filtersAnswer = z.object({
  types: z.array(z.object({ ...option, icon: z.string() })),
  courses: z.array(z.object({ ...option, semester: z.string().nullable() })).describe("The caller's courses"),
  difficulty: z.array(z.object({ ...option, color: z.string() })),
  status: z.array(z.object({ ...option, color: z.string() })),
  dateRanges: z.array(z.object(option)).describe("today, week, month, semester, custom"),
});

export const resultTypeJson = resultTypes.toRest;

/** The REST shape of a search result (course fields only when the record belongs to a course). */
export function searchResultJson(result: api.SearchResult) {
  return {
    id: result.id,
    title: result.title,
    type: resultTypeJson(result.type),
    content: result.content,
    description: result.description,
    relevanceScore: result.relevanceScore,
    snippet: result.snippet,
    highlights: result.highlights,
    courseId: result.courseId,
    courseName: result.courseName,
    metadata: result.metadata ?? {},
    createdAt: iso(result.createdAt, "SearchResult.createdAt"),
    updatedAt: iso(result.updatedAt, "SearchResult.updatedAt"),
  };
}

/** The whole `data` of GET /api/search. */
export function searchResponseJson(response: api.SearchResponse) {
  const filters = required(response.filters, "filters in Search reply");
  return {
    results: response.results.map(searchResultJson),
    totalCount: response.totalCount,
    suggestions: response.suggestions,
    searchTime: response.searchTime,
    resultsByType: response.resultsByType,
    query: response.query,
    filters: {
      types: filters.types.map(resultTypeJson),
      courseId: filters.courseId,
      minRelevance: filters.minRelevance,
      startDate: filters.startDate,
      endDate: filters.endDate,
      difficulty: filters.difficulty,
      status: filters.status,
    },
    pagination: { limit: response.limit, offset: response.offset, hasMore: response.hasMore },
  };
}

/** The `data` of GET /api/search/filters. */
export function searchFiltersJson(response: api.GetSearchFiltersResponse) {
  return {
    types: response.types.map(({ value, label, icon }) => ({ value, label, icon: required(icon, `icon of type filter ${value}`) })),
    courses: response.courses.map(({ value, label, semester }) => ({ value, label, semester: semester ?? null })),
    difficulty: response.difficulty.map(({ value, label, color }) => ({ value, label, color: required(color, `color of difficulty ${value}`) })),
    status: response.status.map(({ value, label, color }) => ({ value, label, color: required(color, `color of status ${value}`) })),
    dateRanges: response.dateRanges.map(({ value, label }) => ({ value, label })),
  };
}

const tag = "Search";

export function searchRoutes(clients: ServiceClients): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/api/search",
      tag,
      summary: "Search everything the caller owns, ranked by relevance",
      description:
        "Notes, flashcard sets, study guides, quizzes, courses, documents (title, tags and extracted text), calendar events and " +
        "chat sessions. Parameters are " +
        "checked by the search service; a parameter given twice is 400 VALIDATION_ERROR.",
      auth: true,
      query: searchQuery,
      responses: {
        200: { description: "A page of results with counts per type", schema: dataEnvelope(searchAnswer) },
        400: {
          description:
            "VALIDATION_ERROR (query missing, empty or over 500 characters; an unknown type, difficulty or status; a date not " +
            "YYYY-MM-DD; a parameter given twice), INVALID_LIMIT (outside 1-100), INVALID_OFFSET (below 0), INVALID_MIN_RELEVANCE " +
            "(outside 0-1), INVALID_DATE_RANGE (startDate after endDate)",
          schema: errorEnvelope,
        },
        500: { description: "The search failed (SEARCH_FAILED) or an unexpected failure (INTERNAL_ERROR)", schema: errorEnvelope },
      },
      async handler({ userId, query, res }) {
        const response = await clients.search.search({ userId, ...query });
        sendData(res, 200, searchResponseJson(response), "Search completed");
      },
    }),
    route({
      method: "get",
      path: "/api/search/filters",
      tag,
      summary: "The filters a search can take, with the caller's courses",
      auth: true,
      responses: {
        200: { description: "Filter options", schema: dataEnvelope(filtersAnswer) },
        500: { description: "The filters could not be read (FILTERS_FAILED) or an unexpected failure (INTERNAL_ERROR)", schema: errorEnvelope },
      },
      async handler({ userId, res }) {
        const response = await clients.search.getSearchFilters({ userId });
        sendData(res, 200, searchFiltersJson(response), "Search filters retrieved");
      },
    }),
    route({
      method: "get",
      path: "/api/search/suggestions",
      tag,
      summary: "Completions of what the user is typing, from their own titles and terms",
      auth: true,
      query: suggestionsQuery,
      responses: {
        200: { description: "Suggestions, best first", schema: dataEnvelope(z.object({ suggestions: z.array(z.string()) })) },
        400: {
          description: "QUERY_TOO_SHORT (missing or under 2 characters), VALIDATION_ERROR (over 100 characters, or given twice)",
          schema: errorEnvelope,
        },
        500: {
          description: "The suggestions could not be read (SUGGESTIONS_FAILED) or an unexpected failure (INTERNAL_ERROR)",
          schema: errorEnvelope,
        },
      },
      async handler({ userId, query, res }) {
        const { suggestions } = await clients.search.getSuggestions({ userId, query: query.query });
        sendData(res, 200, { suggestions }, "Suggestions retrieved");
      },
    }),
  ];
}
