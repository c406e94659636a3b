import { AppError, isAppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { DOCUMENT_TYPES, type DocumentType } from "../domain/document-format";
import { maxFusedScore, reciprocalRankFusion } from "../domain/rank-fusion";
import { l2Normalize } from "../domain/vector";
import type { CourseDirectory } from "./ports/course-directory.port";
import type { DescribedHit, DocumentSearch, KeywordQuery, Ranking, RankedDocument, SearchScope } from "./ports/document-search.port";
import type { EmbeddingProvider } from "./ports/embedding-provider.port";

export const SEARCH_TYPES = ["keyword", "semantic", "hybrid"] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const QUERY_MAX_LENGTH = 500;
export const DEFAULT_SEARCH_LIMIT = 20;
export const MAX_SEARCH_LIMIT = 100;
export const MAX_FILTER_VALUES = 50;
/** Documents each method contributes to a hybrid fusion (and a semantic ranking is read up to). */
export const FUSION_CANDIDATES = 1_000;
/** Below this cosine similarity a document is not a semantic match (OpenAI's text-embedding-3 models put unrelated texts at ~0-0.15). */
export const DEFAULT_MIN_SIMILARITY = 0.2;
export const SEARCH_SUGGESTIONS = 5;
/** Chunks of the best results whose words are offered as suggestions. */
const SUGGESTION_SOURCE_CHUNKS = 5;

export interface SearchDocumentsInput {
  userId: string;
  courseId: string;
  query: string;
  documentTypes?: readonly string[];
  tags?: readonly string[];
  limit?: number;
  offset?: number;
  /** keyword (default), semantic or hybrid; case-insensitive. */
  searchType?: string;
}

export interface DocumentSearchResult extends DescribedHit {
  /** 0-1; its meaning depends on the method that ran (see SearchDocuments). */
  relevanceScore: number;
}

export interface DocumentSearchAnswer {
  results: DocumentSearchResult[];
  /** Matching documents in all (before limit/offset). */
  totalCount: number;
  suggestions: string[];
  /** The method that ran: keyword when semantic or hybrid was asked for but cannot run (see SearchDocuments). */
  searchType: SearchType;
}

export interface SearchDocumentsOptions {
  minSimilarity?: number;
}

interface Query {
  scope: SearchScope;
  text: string;
  limit: number;
  offset: number;
  searchType: SearchType;
}

const invalid = (code: string, field: string, message: string) =>
  new AppError("validation", code, `${field} ${message}`, { details: [{ field, message }] });

const roundScore = (score: number) => Math.round(Math.min(1, Math.max(0, score)) * 10_000) / 10_000;

function filterValues(field: string, values: readonly string[] | undefined): string[] {
  const kept = [...new Set((values ?? []).map((value) => value.trim()).filter(Boolean))];
  if (kept.length > MAX_FILTER_VALUES) throw invalid("VALIDATION_ERROR", field, `accepts at most ${MAX_FILTER_VALUES} values`);
  return kept;
}

/** Validates a search with the spec's codes (VALIDATION_ERROR, INVALID_LIMIT, INVALID_OFFSET). */
export function parseSearchDocumentsInput(input: SearchDocumentsInput): Query {
  requireUserId(input.userId);
  const courseId = input.courseId.trim();
  if (!courseId) throw invalid("VALIDATION_ERROR", "courseId", "is required");
  const text = input.query.trim();
  if (text.length === 0) throw invalid("VALIDATION_ERROR", "query", "is required");
  if (text.length > QUERY_MAX_LENGTH) throw invalid("VALIDATION_ERROR", "query", `must be at most ${QUERY_MAX_LENGTH} characters`);
  const documentTypes = filterValues("documentTypes", input.documentTypes).map((value) => value.toUpperCase());
  const unknown = documentTypes.filter((value) => !(DOCUMENT_TYPES as readonly string[]).includes(value));
  if (unknown.length > 0) {
    throw invalid("VALIDATION_ERROR", "documentTypes", `has unknown values ${unknown.join(", ")}; allowed: ${DOCUMENT_TYPES.join(", ")}`);
  }
  const tags = filterValues("tags", input.tags);
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw invalid("INVALID_LIMIT", "limit", `must be an integer between 1 and ${MAX_SEARCH_LIMIT}`);
  }
  const offset = input.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalid("INVALID_OFFSET", "offset", "must be an integer of 0 or more");
  const searchType = (input.searchType?.trim() || "keyword").toLowerCase();
  if (!(SEARCH_TYPES as readonly string[]).includes(searchType)) {
    throw invalid("VALIDATION_ERROR", "searchType", `must be one of ${SEARCH_TYPES.join(", ")}`);
  }
  return {
    scope: { userId: input.userId, courseId, documentTypes: [...new Set(documentTypes)] as DocumentType[], tags },
    text,
    limit,
    offset,
    searchType: searchType as SearchType,
  };
}

interface RankedPage {
  total: number;
  /** The page's documents, best first, with the chunk to describe and the relevance (0-1). */
  hits: RankedDocument[];
  /** The tsquery the snippets are made with. */
  snippetQuery: KeywordQuery;
  searchType: SearchType;
}

/**
 * GET /api/documents/search: one user's processed documents of one course, best first, one result per document
 * (its best chunk gives snippet, highlights and page).
 *
 * - keyword: full-text (web-search syntax: every word, "phrases", or, -word); when no document holds every word,
 *   the query is relaxed to any of its words. relevanceScore = the best chunk's ts_rank ÷ the best rank among all
 *   matching documents (the top document of a query scores 1, on every page).
 * - semantic: the query's embedding against the chunks' (cosine similarity); relevanceScore = the best chunk's
 *   similarity; documents under `minSimilarity` (default 0.2) do not match.
 * - hybrid: reciprocal-rank fusion (k = 60) of the keyword and semantic rankings (up to 1 000 documents each);
 *   relevanceScore = fused score ÷ the highest possible (first in both lists); totalCount = documents in either.
 * Semantic and hybrid need an embedding provider and chunks embedded by its model; without them the keyword search
 * runs and `searchType` says "keyword": no similarity is ever made up. A failing provider fails the search (502).
 * suggestions: up to 5 words of the course's documents: completions of the query's last word, then frequent words
 * of the best results' chunks.
 */
export class SearchDocuments {
  private readonly minSimilarity: number;

  constructor(
    private readonly search: DocumentSearch,
    private readonly embeddings: EmbeddingProvider | null,
    /** A search in another user's course, or in none, is NOT_FOUND (as a list of it is), not an empty answer. */
    private readonly courses: CourseDirectory,
    options: SearchDocumentsOptions = {},
  ) {
    this.minSimilarity = options.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
  }

  async execute(input: SearchDocumentsInput, signal?: AbortSignal): Promise<DocumentSearchAnswer> {
    const query = parseSearchDocumentsInput(input);
    await this.courses.assertOwned(query.scope.userId, query.scope.courseId);
    try {
      const page = await this.rankedPage(query, signal);
      const described = await this.search.describe(query.scope.userId, page.hits, page.snippetQuery);
      const relevance = new Map(page.hits.map((hit) => [hit.documentId, hit.score]));
      const results = described.map((hit) => ({ ...hit, relevanceScore: roundScore(relevance.get(hit.documentId) ?? 0) }));
      const suggestions = await this.search.suggestions(
        query.scope,
        query.text,
        page.hits.slice(0, SUGGESTION_SOURCE_CHUNKS).map((hit) => hit.chunkId),
        SEARCH_SUGGESTIONS,
      );
      return { results, totalCount: page.total, suggestions, searchType: page.searchType };
    } catch (error) {
      if (isAppError(error) || signal?.aborted) throw error;
      throw new AppError("internal", "SEARCH_FAILED", "Document search failed", { cause: error });
    }
  }

  private async rankedPage(query: Query, signal?: AbortSignal): Promise<RankedPage> {
    const { scope, offset, limit } = query;
    const semantic = query.searchType === "keyword" ? null : await this.semanticRanking(query, signal);
    if (!semantic) {
      const keyword = await this.keywordRanking(scope, query.text, offset + limit);
      return { total: keyword.ranking.total, hits: keyword.ranking.documents.slice(offset), snippetQuery: keyword.query, searchType: "keyword" };
    }
    const anyWord: KeywordQuery = { text: query.text, match: "any" };
    if (query.searchType === "semantic") {
      return { total: semantic.total, hits: semantic.documents.slice(offset, offset + limit), snippetQuery: anyWord, searchType: "semantic" };
    }
    const keyword = await this.keywordRanking(scope, query.text, FUSION_CANDIDATES);
    const fused = reciprocalRankFusion([keyword.ranking.documents.map((hit) => hit.documentId), semantic.documents.map((hit) => hit.documentId)]);
    const keywordHits = new Map(keyword.ranking.documents.map((hit) => [hit.documentId, hit]));
    const semanticHits = new Map(semantic.documents.map((hit) => [hit.documentId, hit]));
    const best = maxFusedScore(2);
    const hits = fused.slice(offset, offset + limit).flatMap((item): RankedDocument[] => {
      // The keyword's best chunk holds the query's words: the better snippet.
      const chunk = keywordHits.get(item.id) ?? semanticHits.get(item.id);
      return chunk ? [{ documentId: item.id, chunkId: chunk.chunkId, score: item.score / best }] : [];
    });
    return { total: fused.length, hits, snippetQuery: keyword.query, searchType: "hybrid" };
  }

  /** Every word in one chunk; if no document has one, any of the words. */
  private async keywordRanking(scope: SearchScope, text: string, max: number): Promise<{ ranking: Ranking; query: KeywordQuery }> {
    const all: KeywordQuery = { text, match: "all" };
    const ranking = await this.search.keywordRanking(scope, all, max);
    if (ranking.total > 0) return { ranking, query: all };
    const any: KeywordQuery = { text, match: "any" };
    return { ranking: await this.search.keywordRanking(scope, any, max), query: any };
  }

  /** The semantic ranking, or null when it cannot run (no provider, no chunk embedded by its model). */
  private async semanticRanking(query: Query, signal?: AbortSignal): Promise<Ranking | null> {
    if (!this.embeddings) return null;
    const dimensions = await this.search.embeddingDimensions(query.scope, this.embeddings.model);
    if (dimensions === null) return null;
    const [raw] = await this.embeddings.embed([query.text], signal);
    const vector = raw ? l2Normalize(raw) : null;
    if (!vector) throw new AppError("upstream", "EMBEDDING_FAILED", "The embedding service returned no usable vector for the query");
    // Stored vectors of another length come from another configuration of the model (`dimensions`): not comparable.
    if (vector.length !== dimensions) return null;
    const max = query.searchType === "hybrid" ? FUSION_CANDIDATES : query.offset + query.limit;
    return this.search.semanticRanking(query.scope, { vector, model: this.embeddings.model, minSimilarity: this.minSimilarity }, max);
  }
}
