import type {
  DescribedHit,
  DocumentSearch,
  KeywordQuery,
  Ranking,
  RankedDocument,
  SearchScope,
  SemanticQuery,
} from "../../src/application/ports/document-search.port";

export interface StoredDocument {
  id: string;
  userId: string;
  courseId: string;
  title: string;
  documentType: string;
  tags: string[];
  processed: boolean;
  createdAt: Date;
  chunks: { id: string; page: number; text: string; embedding?: number[]; embeddingModel?: string }[];
}

const wordsOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * DocumentSearch over documents in memory, for the use case's tests: a chunk matches when it holds every word of
 * the query ("all") or one of them ("any"); its rank is the number of query-word occurrences; semantic ranking is the
 * dot product of vectors. Records the calls made.
 */
export class InMemoryDocumentSearch implements DocumentSearch {
  readonly documents: StoredDocument[] = [];
  readonly calls: string[] = [];

  private inScope(scope: SearchScope): StoredDocument[] {
    return this.documents.filter(
      (document) =>
        document.userId === scope.userId &&
        document.courseId === scope.courseId &&
        document.processed &&
        (scope.documentTypes.length === 0 || scope.documentTypes.includes(document.documentType)) &&
        (scope.tags.length === 0 || document.tags.some((tag) => scope.tags.includes(tag))),
    );
  }

  private rank(hits: (RankedDocument & { createdAt: Date })[], max: number, normalise: boolean): Ranking {
    hits.sort((a, b) => b.score - a.score || b.createdAt.getTime() - a.createdAt.getTime());
    const top = hits[0]?.score ?? 1;
    return {
      total: hits.length,
      documents: hits.slice(0, max).map(({ documentId, chunkId, score }) => ({ documentId, chunkId, score: normalise ? score / top : score })),
    };
  }

  async keywordRanking(scope: SearchScope, query: KeywordQuery, max: number): Promise<Ranking> {
    this.calls.push(`keyword:${query.match}`);
    const words = wordsOf(query.text);
    const hits = this.inScope(scope).flatMap((document) => {
      const scored = document.chunks.map((chunk) => {
        const chunkWords = wordsOf(chunk.text);
        const matches = query.match === "all" ? words.every((word) => chunkWords.includes(word)) : words.some((word) => chunkWords.includes(word));
        return { chunk, score: matches ? chunkWords.filter((word) => words.includes(word)).length : 0 };
      });
      const best = scored.filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score)[0];
      return best ? [{ documentId: document.id, chunkId: best.chunk.id, score: best.score, createdAt: document.createdAt }] : [];
    });
    return this.rank(hits, max, true);
  }

  async embeddingDimensions(scope: SearchScope, model: string): Promise<number | null> {
    this.calls.push("dimensions");
    for (const document of this.inScope(scope)) {
      for (const chunk of document.chunks) if (chunk.embedding && chunk.embeddingModel === model) return chunk.embedding.length;
    }
    return null;
  }

  async semanticRanking(scope: SearchScope, query: SemanticQuery, max: number): Promise<Ranking> {
    this.calls.push("semantic");
    const hits = this.inScope(scope).flatMap((document) => {
      const scored = document.chunks
        .filter((chunk) => chunk.embedding && chunk.embeddingModel === query.model && chunk.embedding.length === query.vector.length)
        .map((chunk) => ({ chunk, score: (chunk.embedding ?? []).reduce((sum, value, i) => sum + value * query.vector[i], 0) }))
        .sort((a, b) => b.score - a.score);
      const best = scored[0];
      return best && best.score >= query.minSimilarity
        ? [{ documentId: document.id, chunkId: best.chunk.id, score: best.score, createdAt: document.createdAt }]
        : [];
    });
    return this.rank(hits, max, false);
  }

  async describe(userId: string, hits: readonly { documentId: string; chunkId: string }[], query: KeywordQuery): Promise<DescribedHit[]> {
    this.calls.push(`describe:${query.match}`);
    const words = wordsOf(query.text);
    return hits.flatMap((hit) => {
      const document = this.documents.find((candidate) => candidate.id === hit.documentId && candidate.userId === userId);
      const chunk = document?.chunks.find((candidate) => candidate.id === hit.chunkId);
      if (!document || !chunk) return [];
      return [
        {
          documentId: document.id,
          title: document.title,
          documentType: document.documentType,
          author: null,
          pageCount: 1,
          wordCount: wordsOf(chunk.text).length,
          tags: document.tags,
          createdAt: document.createdAt,
          page: chunk.page,
          snippet: chunk.text,
          highlights: (chunk.text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => words.includes(word.toLowerCase())),
        },
      ];
    });
  }

  async suggestions(scope: SearchScope, query: string, relatedChunkIds: readonly string[], limit: number): Promise<string[]> {
    this.calls.push(`suggestions:${relatedChunkIds.join(",")}`);
    const last = wordsOf(query).at(-1) ?? "";
    const words = this.inScope(scope).flatMap((document) => document.chunks.flatMap((chunk) => wordsOf(chunk.text)));
    return [...new Set(words.filter((word) => word.startsWith(last) && word !== last))].slice(0, limit);
  }
}
