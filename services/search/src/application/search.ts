import type { Logger } from "@study/platform";
import { requireUserId } from "@study/platform/ids";
import { parseSearchQuery, SUGGESTIONS_MAX_LENGTH, SUGGESTIONS_MIN_LENGTH, type RawSearchQuery, type SearchQuery } from "../domain/search-query";
import type { RecordType } from "../domain/search-record";
import { failingAs } from "./index-failure";
import type { IndexLedger } from "./ports/index-ledger.port";
import type { IndexHit, SearchIndex } from "./ports/search-index.port";

/** Suggestions offered beside the results (GET /api/search/suggestions offers more). */
export const SEARCH_SUGGESTIONS = 5;

export interface SearchResultItem extends IndexHit {
  /** The name of the record's course, when it has one the user owns. */
  courseName?: string;
}

export interface SearchAnswer {
  results: SearchResultItem[];
  totalCount: number;
  suggestions: string[];
  /** Milliseconds spent answering. */
  searchTime: number;
  resultsByType: Partial<Record<RecordType, number>>;
  /** The query as applied (defaults filled in): the echo of `query` and `filters`. */
  query: SearchQuery;
  pagination: { limit: number; offset: number; hasMore: boolean };
}

/** A monotonic clock in milliseconds (performance.now in production), for searchTime. */
export type Stopwatch = () => number;

/**
 * GET /api/search: parses the query (its codes are the spec's), asks the index for one user's matches, names
 * the courses of the results and adds suggestions. Any failure of the index or the database is SEARCH_FAILED.
 */
export class Search {
  constructor(
    private readonly index: SearchIndex,
    private readonly ledger: IndexLedger,
    private readonly logger: Logger,
    private readonly stopwatch: Stopwatch = () => performance.now(),
  ) {}

  async execute(userId: string, raw: RawSearchQuery): Promise<SearchAnswer> {
    const started = this.stopwatch();
    requireUserId(userId);
    const query = parseSearchQuery(raw);
    return failingAs(this.logger, "SEARCH_FAILED", "Search failed", { userId }, async () => {
      const [page, suggestions] = await Promise.all([
        this.index.search({
          userId,
          text: query.text,
          types: query.types.length > 0 ? query.types : undefined,
          courseId: query.courseId,
          createdFrom: query.createdFrom,
          createdBefore: query.createdBefore,
          difficulty: query.difficulty.length > 0 ? query.difficulty : undefined,
          status: query.status.length > 0 ? query.status : undefined,
          minRelevance: query.minRelevance,
          limit: query.limit,
          offset: query.offset,
        }),
        query.text.length >= SUGGESTIONS_MIN_LENGTH
          ? this.index.suggest(userId, query.text.slice(0, SUGGESTIONS_MAX_LENGTH), SEARCH_SUGGESTIONS)
          : Promise.resolve([]),
      ]);
      const courseIds = [...new Set(page.hits.flatMap((hit) => (hit.record.courseId ? [hit.record.courseId] : [])))];
      const names = new Map((courseIds.length > 0 ? await this.ledger.courseNames(userId, courseIds) : []).map((course) => [course.id, course.name]));
      const results = page.hits.map((hit): SearchResultItem => {
        const courseName = hit.record.courseId ? names.get(hit.record.courseId) : undefined;
        return courseName === undefined ? hit : { ...hit, courseName };
      });
      return {
        results,
        totalCount: page.total,
        suggestions,
        resultsByType: page.byType,
        query,
        pagination: { limit: query.limit, offset: query.offset, hasMore: query.offset + results.length < page.total },
        searchTime: Math.max(0, this.stopwatch() - started),
      };
    });
  }
}
