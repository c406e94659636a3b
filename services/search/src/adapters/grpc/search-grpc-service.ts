import { search as api } from "@study/contracts";
import { bindUnaryHandlers } from "@study/grpc";
import type { Logger } from "@study/platform";
import type { GetSearchFilters, SearchFilters } from "../../application/get-search-filters";
import type { GetSuggestions } from "../../application/get-suggestions";
import type { Search, SearchAnswer, SearchResultItem } from "../../application/search";
import type { RecordType } from "../../domain/search-record";
import { toProtoType } from "../contracts/searchable-mapping";

export interface SearchUseCases {
  search: Search;
  getSearchFilters: GetSearchFilters;
  getSuggestions: GetSuggestions;
}

const MARK = /<\/?mark>/g;

export function toProtoResult(item: SearchResultItem): api.SearchResult {
  const { record } = item;
  return {
    id: record.id,
    type: toProtoType(record.type),
    title: record.title,
    // The spec's content is the matched excerpt: the snippet without its highlight marks.
    content: item.snippet.replace(MARK, ""),
    description: record.description,
    relevanceScore: item.relevanceScore,
    snippet: item.snippet,
    highlights: item.highlights,
    courseId: record.courseId,
    courseName: item.courseName,
    metadata: { ...record.metadata },
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function toProtoSearchResponse(answer: SearchAnswer): api.SearchResponse {
  const { query } = answer;
  const resultsByType: Record<string, number> = {};
  for (const [type, count] of Object.entries(answer.resultsByType)) if (count) resultsByType[type] = count;
  return {
    results: answer.results.map(toProtoResult),
    totalCount: answer.totalCount,
    suggestions: answer.suggestions,
    searchTime: answer.searchTime,
    resultsByType,
    query: query.text,
    filters: {
      types: query.types.map((type: RecordType) => toProtoType(type)),
      courseId: query.courseId,
      minRelevance: query.minRelevance,
      startDate: query.startDate,
      endDate: query.endDate,
      difficulty: query.difficulty,
      status: query.status,
    },
    limit: answer.pagination.limit,
    offset: answer.pagination.offset,
    hasMore: answer.pagination.hasMore,
  };
}

export function toProtoFilters(filters: SearchFilters): api.GetSearchFiltersResponse {
  return {
    types: filters.types.map(({ value, label, icon }) => ({ value, label, icon })),
    courses: filters.courses.map(({ value, label, semester }) => ({ value, label, semester })),
    difficulty: filters.difficulty.map(({ value, label, color }) => ({ value, label, color })),
    status: filters.status.map(({ value, label, color }) => ({ value, label, color })),
    dateRanges: filters.dateRanges.map(({ value, label }) => ({ value, label })),
  };
}

export function searchGrpcService(useCases: SearchUseCases, logger: Logger): api.SearchServiceServer {
  return bindUnaryHandlers(logger, api.SearchServiceService, {
    search: async (request) => {
      const { userId, ...raw } = request;
      return toProtoSearchResponse(await useCases.search.execute(userId, raw));
    },
    getSearchFilters: async (request) => toProtoFilters(await useCases.getSearchFilters.execute(request.userId)),
    getSuggestions: async (request) => ({ suggestions: await useCases.getSuggestions.execute(request.userId, request.query) }),
  });
}
