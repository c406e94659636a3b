import type { DescribedHit, DocumentSearch, KeywordQuery, Ranking, SearchScope, SemanticQuery } from "../../application/ports/document-search.port";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

/** Private-use characters around the words ts_headline marks: they cannot come from extracted text's meaning. */
const MARK_START = "\uE000";
const MARK_STOP = "\uE001";
/** A passage of about 15-35 words, or two fragments of a chunk where the words lie apart. */
const HEADLINE_OPTIONS = `StartSel=${MARK_START}, StopSel=${MARK_STOP}, MaxWords=35, MinWords=15, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "`;
/** Chunks read for completions of the query's last word: bounds the cost in a large course. */
const COMPLETION_CHUNKS = 200;

interface RankRow {
  document_id: string;
  chunk_id: string;
  score: number;
  total: bigint;
}

interface DescribeRow {
  chunk_id: string;
  document_id: string;
  title: string;
  document_type: string;
  author: string | null;
  page_count: number;
  word_count: number;
  tags: string[];
  created_at: Date;
  page: number;
  headline: string;
}

/** The words of a query (letters and digits), lower case: safe inside a LIKE pattern and a regular expression. */
const wordsOf = (text: string) =>
  (
    text
      .normalize("NFC")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((word) => word.length <= 100);

/**
 * The tsquery of a keyword query. "all": websearch_to_tsquery (every word, "quoted phrases", or, -word), English
 * stems; "any": the same words OR-ed (the AND of plainto_tsquery turned into OR; lexemes never hold a space).
 */
function tsquery(query: KeywordQuery): Prisma.Sql {
  return query.match === "all"
    ? Prisma.sql`websearch_to_tsquery('english', ${query.text})`
    : Prisma.sql`replace(plainto_tsquery('english', ${query.text})::text, ' & ', ' | ')::tsquery`;
}

/** The scope's documents: the user's, in the course, processed, of the types and with a tag asked for. */
function documentScope(scope: SearchScope): Prisma.Sql {
  const types = [...scope.documentTypes];
  const tags = [...scope.tags];
  return Prisma.sql`d.user_id = ${scope.userId} AND d.course_id = ${scope.courseId} AND d.status = 'COMPLETED'
    AND (cardinality(${types}::text[]) = 0 OR d.document_type = ANY(${types}::text[]))
    AND (cardinality(${tags}::text[]) = 0 OR d.tags && ${tags}::text[])`;
}

const ranking = (rows: RankRow[]): Ranking => ({
  documents: rows.map((row) => ({ documentId: row.document_id, chunkId: row.chunk_id, score: row.score })),
  total: rows.length === 0 ? 0 : Number(rows[0].total),
});

/** The snippet as plain text and the words ts_headline marked in it (each once, as written, in order). */
function snippetOf(headline: string): { snippet: string; highlights: string[] } {
  const seen = new Set<string>();
  const highlights: string[] = [];
  for (const match of headline.matchAll(/\uE000([^\uE000\uE001]*)\uE001/g)) {
    const word = match[1].trim();
    if (word && !seen.has(word.toLowerCase())) {
      seen.add(word.toLowerCase());
      highlights.push(word);
    }
  }
  return {
    snippet: headline
      .replace(/[\uE000\uE001]/g, "")
      .replace(/\s+/g, " ")
      .trim(),
    highlights,
  };
}

/**
 * Document search over `document_chunk` in PostgreSQL (migration 20261125000000_init: the generated English
 * `search_vector` with its GIN index; `embedding REAL[]` per chunk).
 *
 * - Keyword: chunks whose search_vector matches the tsquery; a document ranks by its best chunk's
 *   ts_rank (normalisation 1: divided by 1 + log of the chunk's length); score = that rank ÷ the best rank among
 *   all the query's matching documents, so the top document scores 1 on every page. Ties: newest document first.
 * - Semantic: an exact scan, no approximate index (pgvector is not available): the dot product of the query's
 *   normalised vector with every normalised vector `model` stored for the scope's chunks, computed in SQL
 *   (unnest of both arrays). Cost is linear in the course's chunks × dimensions: a few thousand chunks of 1 536
 *   dimensions take well under a second; courses far beyond that would need pgvector or a candidate pre-filter.
 * - Snippets: ts_headline on the best chunk with the query's words (OR-ed for semantic hits), as plain text.
 */
export class PrismaDocumentSearch implements DocumentSearch {
  constructor(private readonly db: PrismaClient) {}

  async keywordRanking(scope: SearchScope, query: KeywordQuery, max: number): Promise<Ranking> {
    const rows = await this.db.$queryRaw<RankRow[]>`
      WITH q AS (SELECT ${tsquery(query)} AS query),
      best AS (
        SELECT DISTINCT ON (c.document_id) c.document_id, c.id, ts_rank(c.search_vector, q.query, 1) AS rank
        FROM q, document_chunk c JOIN document d ON d.id = c.document_id
        WHERE c.user_id = ${scope.userId} AND c.course_id = ${scope.courseId} AND ${documentScope(scope)}
          AND c.search_vector @@ q.query
        ORDER BY c.document_id, rank DESC, c.position
      )
      SELECT b.document_id::text AS document_id, b.id::text AS chunk_id,
             CASE WHEN max(b.rank) OVER () > 0 THEN b.rank / max(b.rank) OVER () ELSE 1 END::float8 AS score,
             count(*) OVER () AS total
      FROM best b JOIN document d ON d.id = b.document_id
      ORDER BY b.rank DESC, d.created_at DESC, d.id
      LIMIT ${max}`;
    return ranking(rows);
  }

  async embeddingDimensions(scope: SearchScope, model: string): Promise<number | null> {
    const rows = await this.db.$queryRaw<{ dimensions: number }[]>`
      SELECT cardinality(c.embedding) AS dimensions
      FROM document_chunk c JOIN document d ON d.id = c.document_id
      WHERE c.user_id = ${scope.userId} AND c.course_id = ${scope.courseId} AND ${documentScope(scope)}
        AND c.embedding_model = ${model} AND cardinality(c.embedding) > 0
      LIMIT 1`;
    return rows.length === 0 ? null : rows[0].dimensions;
  }

  async semanticRanking(scope: SearchScope, query: SemanticQuery, max: number): Promise<Ranking> {
    const rows = await this.db.$queryRaw<RankRow[]>`
      WITH scored AS (
        SELECT c.document_id, c.id, c.position,
               (SELECT sum(stored::float8 * asked) FROM unnest(c.embedding, ${query.vector}::float8[]) AS pair(stored, asked)) AS similarity
        FROM document_chunk c JOIN document d ON d.id = c.document_id
        WHERE c.user_id = ${scope.userId} AND c.course_id = ${scope.courseId} AND ${documentScope(scope)}
          AND c.embedding_model = ${query.model} AND cardinality(c.embedding) = ${query.vector.length}
      ),
      best AS (
        SELECT DISTINCT ON (document_id) document_id, id, similarity FROM scored ORDER BY document_id, similarity DESC, position
      )
      SELECT b.document_id::text AS document_id, b.id::text AS chunk_id, b.similarity AS score, count(*) OVER () AS total
      FROM best b JOIN document d ON d.id = b.document_id
      WHERE b.similarity >= ${query.minSimilarity}
      ORDER BY b.similarity DESC, d.created_at DESC, d.id
      LIMIT ${max}`;
    return ranking(rows);
  }

  async describe(userId: string, hits: readonly { documentId: string; chunkId: string }[], query: KeywordQuery): Promise<DescribedHit[]> {
    if (hits.length === 0) return [];
    const rows = await this.db.$queryRaw<DescribeRow[]>`
      WITH q AS (SELECT ${tsquery(query)} AS query)
      SELECT c.id::text AS chunk_id, d.id::text AS document_id, d.title, d.document_type, d.author, d.page_count, d.word_count,
             d.tags, d.created_at, c.page, ts_headline('english', c.text, q.query, ${HEADLINE_OPTIONS}) AS headline
      FROM q, document_chunk c JOIN document d ON d.id = c.document_id
      WHERE c.id = ANY(${hits.map((hit) => hit.chunkId)}::bigint[]) AND c.user_id = ${userId}`;
    const byChunk = new Map(rows.map((row) => [row.chunk_id, row]));
    return hits.flatMap((hit): DescribedHit[] => {
      const row = byChunk.get(hit.chunkId);
      if (!row || row.document_id !== hit.documentId) return [];
      return [
        {
          documentId: row.document_id,
          title: row.title,
          documentType: row.document_type,
          author: row.author,
          pageCount: row.page_count,
          wordCount: row.word_count,
          tags: row.tags,
          createdAt: row.created_at,
          page: row.page,
          ...snippetOf(row.headline),
        },
      ];
    });
  }

  async suggestions(scope: SearchScope, query: string, relatedChunkIds: readonly string[], limit: number): Promise<string[]> {
    const words = wordsOf(query);
    const last = words.at(-1);
    if (limit <= 0 || last === undefined) return [];
    const suggestions: string[] = [];
    const add = (rows: { word: string }[]) => {
      for (const { word } of rows) if (suggestions.length < limit && !suggestions.includes(word) && !words.includes(word)) suggestions.push(word);
    };
    if (last.length >= 2) {
      // Longer words starting with the last word, among a bounded number of the course's chunks holding it.
      add(
        await this.db.$queryRaw<{ word: string }[]>`
          SELECT lower(m[1]) AS word
          FROM (SELECT c.text FROM document_chunk c JOIN document d ON d.id = c.document_id
                WHERE c.user_id = ${scope.userId} AND c.course_id = ${scope.courseId} AND ${documentScope(scope)}
                  AND c.text ILIKE ${`%${last}%`}
                LIMIT ${COMPLETION_CHUNKS}) AS t,
               regexp_matches(t.text, ${`\\m(${last}[[:alnum:]]+)`}, 'gi') AS m
          GROUP BY 1 ORDER BY count(*) DESC, 1
          LIMIT ${limit + words.length}`,
      );
    }
    if (suggestions.length < limit && relatedChunkIds.length > 0) {
      // Frequent words of the best results' chunks: 4+ letters, not English stop words (their vector is empty),
      // not a form of a query word (same stem).
      add(
        await this.db.$queryRaw<{ word: string }[]>`
          WITH q AS (SELECT replace(plainto_tsquery('english', ${query})::text, ' & ', ' | ')::tsquery AS query)
          SELECT lower(w) AS word
          FROM q, document_chunk c, regexp_split_to_table(c.text, '[^[:alpha:]]+') AS w
          WHERE c.id = ANY(${[...relatedChunkIds]}::bigint[]) AND c.user_id = ${scope.userId} AND length(w) >= 4
            AND length(to_tsvector('english', w)) > 0 AND NOT (to_tsvector('english', w) @@ q.query)
          GROUP BY 1 ORDER BY count(*) DESC, 1
          LIMIT ${limit + suggestions.length}`,
      );
    }
    return suggestions;
  }
}
