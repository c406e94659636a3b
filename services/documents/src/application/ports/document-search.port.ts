/**
 * The read side of document search: rankings of one user's processed documents in one course, computed over their
 * chunks. Every method restricts every query to `scope.userId` and `scope.courseId` and to documents whose
 * processing completed.
 */
export interface SearchScope {
  userId: string;
  courseId: string;
  /** Empty: every document type; else documents of one of these types. */
  documentTypes: readonly string[];
  /** Empty: any; else documents carrying at least one of these tags. */
  tags: readonly string[];
}

/** "all": every word of the query in one chunk (web-search syntax: "quoted phrase", or, -word); "any": one word is enough. */
export type KeywordMatch = "all" | "any";

export interface KeywordQuery {
  text: string;
  match: KeywordMatch;
}

export interface SemanticQuery {
  /** The query's embedding, L2-normalised (cosine similarity = dot product with the stored normalised vectors). */
  vector: number[];
  /** Only chunks embedded by this model are compared. */
  model: string;
  /** Documents whose best chunk is less similar are left out (and not counted). */
  minSimilarity: number;
}

/** A document's place in a ranking, with the chunk that placed it there. */
export interface RankedDocument {
  documentId: string;
  /** The document's best chunk for the query (its snippet and page come from it). */
  chunkId: string;
  /** Keyword: the best chunk's ts_rank divided by the best one among all matching documents (0-1]; semantic: cosine similarity. */
  score: number;
}

export interface Ranking {
  /** Every matching document, best first, up to the `max` asked for. */
  documents: RankedDocument[];
  /** How many documents match in all (may exceed documents.length). */
  total: number;
}

/** The fields of one result: the document's metadata and the passage of its best chunk. */
export interface DescribedHit {
  documentId: string;
  title: string;
  documentType: string;
  author: string | null;
  pageCount: number;
  wordCount: number;
  tags: string[];
  createdAt: Date;
  /** The page of the chunk the snippet comes from. */
  page: number;
  /** A passage of the chunk around the query's words (the chunk's beginning when none occurs), plain text. */
  snippet: string;
  /** The words of the snippet matching the query, as written there, each once, in order of appearance. */
  highlights: string[];
}

export interface DocumentSearch {
  /** Full-text ranking: documents holding a chunk that matches the query, by their best chunk's rank. */
  keywordRanking(scope: SearchScope, query: KeywordQuery, max: number): Promise<Ranking>;
  /**
   * The length of the vectors `model` stored for the scope's chunks, or null when none of them has one (chunks
   * processed without a provider, or by another model): then a semantic ranking would find nothing.
   */
  embeddingDimensions(scope: SearchScope, model: string): Promise<number | null>;
  /** Similarity ranking: documents by the cosine similarity of their most similar chunk to the query. */
  semanticRanking(scope: SearchScope, query: SemanticQuery, max: number): Promise<Ranking>;
  /** Result fields for these chunks of the user's documents, in the order given; snippets built for `query`. */
  describe(userId: string, hits: readonly { documentId: string; chunkId: string }[], query: KeywordQuery): Promise<DescribedHit[]>;
  /**
   * Up to `limit` words of the scope's documents for refining the query: completions of its last word first,
   * then frequent words of `relatedChunkIds` (the best results' chunks); never a word of the query itself.
   */
  suggestions(scope: SearchScope, query: string, relatedChunkIds: readonly string[], limit: number): Promise<string[]>;
}
