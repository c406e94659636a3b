import type { IndexPage, IndexQuery, SearchIndex } from "../../../application/ports/search-index.port";
import type { Difficulty, RecordKey, RecordStatus, RecordType, SearchRecord } from "../../../domain/search-record";
import { Prisma, type PrismaClient } from "../../../generated/prisma/client";
import {
  MARK_START,
  MARK_STOP,
  highlightsOf,
  markedWords,
  queryWords,
  snippetHtml,
  storable,
  termsOf,
  typoBudget,
  typoDistance,
} from "./search-text";

type Transaction = Prisma.TransactionClient;

/** One word of the query: the word as typed, or the terms it was corrected to (any of them matches). */
interface Slot {
  words: string[];
  /** The last word, being typed: matches as a prefix. */
  prefix: boolean;
  /** 1, or less for a word found only through typo correction. */
  factor: number;
}

interface HitRow {
  type: RecordType;
  id: string;
  user_id: string;
  course_id: string | null;
  title: string;
  keywords: string[];
  description: string;
  content: string;
  difficulty: Difficulty | null;
  status: RecordStatus | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
  relevance: number;
  headline: string;
}

interface PageRow {
  by_type: Partial<Record<RecordType, number>>;
  hits: HitRow[];
  candidates: CandidateRow[];
}

/** A term of the user's that a typed word may be a typo of. */
interface TermCandidate {
  term: string;
  frequency: number;
}

interface CandidateRow extends TermCandidate {
  word: string;
}

/** A word corrected by a typo is worth less than one typed right. */
const CORRECTED_FACTOR = 0.8;
const MAX_CORRECTIONS_PER_WORD = 3;
/** Excerpts of about 12-30 words, up to two fragments of a long text. */
const HEADLINE_OPTIONS = `StartSel=${MARK_START}, StopSel=${MARK_STOP}, MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "`;
/** Advisory lock class of the per-user write lock (the second key is the user id's hash). */
const USER_LOCK_CLASS = 7275;
const EMPTY_PAGE: IndexPage = { hits: [], total: 0, byType: {} };

/**
 * The embedded search index: PostgreSQL full-text search over `search_document`, typo correction and suggestions
 * from `search_term` (migration 20261124000100_embedded_index).
 *
 * Matching: every word of the query must match in some field (stop words such as "the" are left out unless they
 * are all there is, or being typed), through its English stem or its exact form; the last word also as a prefix.
 * When a query finds nothing, each word that matches none of the user's records is replaced by the user's terms
 * within its typo budget (1 typo from 5 letters, 2 from 9) and the query runs again.
 *
 * Relevance (0-1), computed in SQL and rounded to 4 decimals:
 *   relevance = 0.9 × mean over the query's words of (field weight × correction factor)
 *             + 0.1 × ts_rank(search_vector, any word, normalisation 1)
 * - field weight: of the best field the word matches in: title 1, keywords 0.7, description 0.5, content 0.3;
 * - correction factor: 1, or 0.8 for a word that matched only after typo correction;
 * - ts_rank with PostgreSQL's default weights (title 1, keywords 0.4, description 0.2, content 0.1) over the words
 *   OR-ed, divided by 1 + log(document length): in 0-1, it orders records of equal field weights by how often and
 *   how densely they hold the words.
 * Both terms are within 0-1, so the sum is too. A single word in a title scores ≥ 0.9; in content only ≤ 0.37.
 */
export class PostgresSearchIndex implements SearchIndex {
  constructor(private readonly db: PrismaClient) {}

  async upsert(records: SearchRecord[]): Promise<void> {
    if (records.length === 0) return;
    // The last version of each key wins (one statement cannot write a row twice).
    const batch = [...new Map(records.map((record) => [`${record.type}:${record.id}`, storable(record)])).values()];
    const rows = batch.map((record) => ({
      type: record.type,
      id: record.id,
      user_id: record.userId,
      course_id: record.courseId ?? null,
      title: record.title,
      keywords: record.keywords,
      description: record.description,
      content: record.content,
      difficulty: record.difficulty ?? null,
      status: record.status ?? null,
      metadata: record.metadata,
      created_at: record.createdAt.toISOString(),
      updated_at: record.updatedAt.toISOString(),
      terms: termsOf(record),
    }));
    await this.db.$transaction(
      async (tx) => {
        await lockUsers(
          tx,
          rows.map((row) => row.user_id),
        );
        const previous = await tx.$queryRaw<{ user_id: string; terms: string[] }[]>`
          SELECT user_id, terms FROM search_document
          WHERE (type, id) IN (SELECT * FROM unnest(${rows.map((row) => row.type)}::text[], ${rows.map((row) => row.id)}::text[]))
          FOR UPDATE`;
        const deltas = new TermDeltas();
        for (const row of previous) deltas.add(row.user_id, row.terms, -1);
        for (const row of rows) deltas.add(row.user_id, row.terms, 1);
        await tx.$executeRaw`
          INSERT INTO search_document (type, id, user_id, course_id, title, keywords, description, content, difficulty, status,
                                       metadata, created_at, updated_at, terms)
          SELECT type, id, user_id, course_id, title, keywords, description, content, difficulty, status, metadata, created_at,
                 updated_at, terms
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(type text, id text, user_id text, course_id text, title text,
               keywords text[], description text, content text, difficulty text, status text, metadata jsonb, created_at timestamptz,
               updated_at timestamptz, terms text[])
          ON CONFLICT (type, id) DO UPDATE SET
            user_id = excluded.user_id, course_id = excluded.course_id, title = excluded.title, keywords = excluded.keywords,
            description = excluded.description, content = excluded.content, difficulty = excluded.difficulty,
            status = excluded.status, metadata = excluded.metadata, created_at = excluded.created_at,
            updated_at = excluded.updated_at, terms = excluded.terms`;
        await deltas.apply(tx);
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
  }

  async remove(keys: RecordKey[]): Promise<void> {
    if (keys.length === 0) return;
    const types = keys.map((key) => key.type);
    const ids = keys.map((key) => key.id);
    await this.db.$transaction(
      async (tx) => {
        const owners = await tx.$queryRaw<{ user_id: string }[]>`
          SELECT DISTINCT user_id FROM search_document WHERE (type, id) IN (SELECT * FROM unnest(${types}::text[], ${ids}::text[]))`;
        if (owners.length === 0) return;
        await lockUsers(
          tx,
          owners.map((owner) => owner.user_id),
        );
        const removed = await tx.$queryRaw<{ user_id: string; terms: string[] }[]>`
          DELETE FROM search_document WHERE (type, id) IN (SELECT * FROM unnest(${types}::text[], ${ids}::text[]))
          RETURNING user_id, terms`;
        const deltas = new TermDeltas();
        for (const row of removed) deltas.add(row.user_id, row.terms, -1);
        await deltas.apply(tx);
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
  }

  async removeUser(userId: string): Promise<void> {
    await this.db.$transaction(
      async (tx) => {
        await lockUsers(tx, [userId]);
        await tx.$executeRaw`DELETE FROM search_document WHERE user_id = ${userId}`;
        await tx.$executeRaw`DELETE FROM search_term WHERE user_id = ${userId}`;
      },
      { maxWait: 10_000, timeout: 60_000 },
    );
  }

  async search(query: IndexQuery): Promise<IndexPage> {
    const words = queryWords(query.text);
    if (words.length === 0) return EMPTY_PAGE;
    const slots = words.map((word, i): Slot => ({ words: [word], prefix: i === words.length - 1, factor: 1 }));
    const { page, candidates } = await this.runSearch(query, slots, true);
    if (page.total > 0 || candidates.size === 0) return page;
    // A word matched none of the user's records: perhaps a typo. Replace it by the user's closest terms, once.
    const corrected = correctTypos(slots, candidates);
    return corrected ? (await this.runSearch(query, corrected, false)).page : page;
  }

  async suggest(userId: string, prefix: string, limit: number): Promise<string[]> {
    const words = queryWords(prefix);
    const last = words.at(-1);
    if (last === undefined || limit <= 0) return [];
    // Titles holding every word (the last as the start of a word), most recently changed first. A regular expression
    // on the user's titles: cheaper than reading their vectors, and the words are letters and digits only.
    const patterns = words.map(
      (word, i) => `\\m${word.replace(/[^\p{L}\p{N}]/gu, (character) => `\\${character}`)}${i === words.length - 1 ? "" : "\\M"}`,
    );
    // One statement: titles; for a single word also the user's words starting with it (a range of the C-collated
    // primary key), most frequent first; and, when those are fewer than asked, the terms it may be a typo of.
    const single = words.length === 1;
    const [row] = await this.db.$queryRaw<{ titles: string[]; terms: string[]; candidates: TermCandidate[] }[]>`
      WITH titles AS MATERIALIZED (
        SELECT title, row_number() OVER (ORDER BY updated_at DESC, type, id) AS n FROM search_document
        WHERE user_id = ${userId} AND title ~* ALL (${patterns}::text[])
        ORDER BY updated_at DESC, type, id
        LIMIT ${limit}
      ), terms AS MATERIALIZED (
        SELECT term, row_number() OVER (ORDER BY frequency DESC, term) AS n FROM search_term
        WHERE ${single} AND user_id = ${userId} AND term >= ${last} AND term < ${`${last}\u{10FFFF}`}
        ORDER BY frequency DESC, term
        LIMIT ${limit}
      )
      SELECT
        (SELECT coalesce(json_agg(title ORDER BY n), '[]'::json) FROM titles) AS titles,
        (SELECT coalesce(json_agg(term ORDER BY n), '[]'::json) FROM terms) AS terms,
        (SELECT coalesce(json_agg(json_build_object('term', t.term, 'frequency', t.frequency)), '[]'::json)
         FROM (${termsLike(userId, Prisma.sql`${last}::text`)}) t
         WHERE ${single && typoBudget(last) > 0} AND (SELECT count(*) FROM titles) + (SELECT count(*) FROM terms) < ${limit}) AS candidates`;
    const suggestions = [...row.titles, ...row.terms, ...closestTerms(last, true, row.candidates, limit)];
    const seen = new Set<string>();
    return suggestions
      .filter((suggestion) => {
        const key = suggestion.toLowerCase();
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .slice(0, limit);
  }

  /**
   * One page of the query's matches. With `correct`, when nothing matched, also the typo candidates of each word
   * that none of the user's records match, in the same statement.
   */
  private async runSearch(
    query: IndexQuery,
    slots: Slot[],
    correct: boolean,
  ): Promise<{ page: IndexPage; candidates: Map<string, TermCandidate[]> }> {
    const { texts, prefixes, factors } = slotParameters(slots);
    const correctable = slots.map((slot) => correct && typoBudget(slot.words[0]) > 0);
    const [row] = await this.db.$queryRaw<PageRow[]>`
      WITH slot AS (
        SELECT s.words, s.is_prefix, s.factor, s.correctable, length(to_tsvector('english', s.words)) = 0 AS stop_word
        FROM unnest(${texts}::text[], ${prefixes}::boolean[], ${factors}::float8[], ${correctable}::boolean[])
             AS s(words, is_prefix, factor, correctable)
      ), word AS MATERIALIZED (
        SELECT words, factor, correctable,
               search_word_query(string_to_array(words, ' '), is_prefix, '') AS anywhere,
               search_word_query(string_to_array(words, ' '), is_prefix, 'A') AS in_title,
               search_word_query(string_to_array(words, ' '), is_prefix, 'B') AS in_keywords,
               search_word_query(string_to_array(words, ' '), is_prefix, 'C') AS in_description
        FROM slot
        -- Stop words ("the", "of") are left out, unless being typed or all the query has.
        WHERE NOT stop_word OR is_prefix OR NOT EXISTS (SELECT 1 FROM slot WHERE NOT stop_word)
      ), query AS (
        SELECT string_agg('(' || anywhere::text || ')', ' & ')::tsquery AS every_word,
               string_agg(anywhere::text, ' | ')::tsquery AS any_word,
               string_agg(in_title::text, ' | ')::tsquery AS any_in_title,
               string_agg(in_keywords::text, ' | ')::tsquery AS any_in_keywords,
               string_agg(in_description::text, ' | ')::tsquery AS any_in_description,
               count(*) AS words,
               -- What to look for in the content to centre its excerpt: the words as typed and their stems.
               (SELECT array_agg(DISTINCT needle) FROM slot,
                  unnest(string_to_array(slot.words, ' ') || tsvector_to_array(to_tsvector('english', slot.words))) AS needle) AS needles
        FROM word WHERE anywhere IS NOT NULL
      ), matched AS MATERIALIZED (
        SELECT d.type, d.id, d.updated_at,
               -- The field whose excerpt is the snippet: the best one holding a word.
               CASE WHEN dv.vector @@ q.any_in_title THEN 'title' WHEN dv.vector @@ q.any_in_keywords THEN 'keywords'
                    WHEN dv.vector @@ q.any_in_description THEN 'description' ELSE 'content' END AS snippet_field,
               round((
                 0.9 * (SELECT sum(w.factor * CASE WHEN dv.vector @@ w.in_title THEN 1.0
                                                   WHEN dv.vector @@ w.in_keywords THEN 0.7
                                                   WHEN dv.vector @@ w.in_description THEN 0.5
                                                   ELSE 0.3 END)
                        FROM word w WHERE w.anywhere IS NOT NULL) / q.words
                 + 0.1 * ts_rank(dv.vector, q.any_word, 1)
               )::numeric, 4)::float8 AS relevance
        FROM search_document d CROSS JOIN query q
        -- Matched on the user's rows (user_id index): coalesce() keeps the planner from AND-ing them with the matches of
        -- the (user_id, search_vector) GIN index, which for a short prefix ("c") read every user's entries (40-60 ms
        -- against 9). Each matching row's vector is then read (and decompressed, when long) once for the ranking, not
        -- once per use below: a copy, kept by OFFSET 0 from being inlined back into each use. Copying every row's
        -- vector before matching cost half the statement (4.5 of 9 ms for 3 000 records).
        CROSS JOIN LATERAL (SELECT d.search_vector || ''::tsvector AS vector OFFSET 0) dv
        WHERE d.user_id = ${query.userId}
          AND coalesce(d.search_vector, ''::tsvector) @@ q.every_word
          AND (${query.types ?? null}::text[] IS NULL OR d.type = ANY (${query.types ?? null}::text[]))
          AND (${query.courseId ?? null}::text IS NULL OR d.course_id = ${query.courseId ?? null}::text)
          AND (${query.createdFrom ?? null}::timestamptz IS NULL OR d.created_at >= ${query.createdFrom ?? null}::timestamptz)
          AND (${query.createdBefore ?? null}::timestamptz IS NULL OR d.created_at < ${query.createdBefore ?? null}::timestamptz)
          AND (${query.difficulty ?? null}::text[] IS NULL OR d.difficulty = ANY (${query.difficulty ?? null}::text[]))
          AND (${query.status ?? null}::text[] IS NULL OR d.status = ANY (${query.status ?? null}::text[]))
      ), unknown AS MATERIALIZED (
        -- Only when nothing matched (a common prefix costs more through the index than the user's rows above), and
        -- then through the (user_id, search_vector) index: a typo matches no entry of it.
        SELECT w.words AS word FROM word w
        WHERE w.correctable AND w.anywhere IS NOT NULL AND NOT EXISTS (SELECT 1 FROM matched)
          AND NOT EXISTS (SELECT 1 FROM search_document d WHERE d.user_id = ${query.userId} AND d.search_vector @@ w.anywhere)
      ), passing AS (
        SELECT * FROM matched WHERE relevance >= ${query.minRelevance}
      ), page AS (
        SELECT * FROM passing ORDER BY relevance DESC, updated_at DESC, type, id LIMIT ${query.limit} OFFSET ${query.offset}
      )
      SELECT
        (SELECT coalesce(jsonb_object_agg(type, n), '{}'::jsonb) FROM (SELECT type, count(*)::int AS n FROM passing GROUP BY type) c) AS by_type,
        (SELECT coalesce(json_agg(h ORDER BY h.relevance DESC, h.updated_at DESC, h.type, h.id), '[]'::json) FROM (
           SELECT d.type, d.id, d.user_id, d.course_id, d.title, d.keywords, d.description, d.content, d.difficulty, d.status,
                  d.metadata, d.created_at, d.updated_at, p.relevance,
                  -- The excerpt of the best field holding a word (title, keywords, description, then content).
                  ts_headline('english',
                    CASE p.snippet_field WHEN 'title' THEN d.title
                                         WHEN 'keywords' THEN array_to_string(d.keywords, ', ')
                                         WHEN 'description' THEN left(d.description, 20000)
                                         ELSE search_content_window(d.content, q.needles) END,
                    q.any_word, ${HEADLINE_OPTIONS}) AS headline
           FROM page p JOIN search_document d ON d.type = p.type AND d.id = p.id CROSS JOIN query q
        ) h) AS hits,
        (SELECT coalesce(json_agg(json_build_object('word', u.word, 'term', t.term, 'frequency', t.frequency)), '[]'::json)
         FROM unknown u CROSS JOIN LATERAL (${termsLike(query.userId, Prisma.sql`u.word`)}) t) AS candidates`;
    const hits = row.hits.map((hit) => {
      const record = toRecord(hit);
      return {
        record,
        relevanceScore: Math.min(1, Math.max(0, hit.relevance)),
        snippet: snippetHtml(hit.headline),
        highlights: highlightsOf(record, markedWords(hit.headline), slots),
      };
    });
    const total = Object.values(row.by_type).reduce((sum, count) => sum + (count ?? 0), 0);
    return { page: { hits, total, byType: row.by_type }, candidates: candidatesByWord(row.candidates) };
  }
}

/** The user's terms that look like a word (trigram similarity, or the word resembling the start of a term): SQL. */
function termsLike(userId: string, word: Prisma.Sql): Prisma.Sql {
  // The functions rather than the % and <% operators: the user's own terms (a range of the primary key) are fewer
  // than the matches of a trigram index over every user's terms.
  return Prisma.sql`
    SELECT term, frequency FROM search_term
    WHERE user_id = ${userId} AND (similarity(term, ${word}) >= 0.3 OR word_similarity(${word}, term) >= 0.5)
    ORDER BY greatest(similarity(term, ${word}), word_similarity(${word}, term)) DESC, frequency DESC
    LIMIT 20`;
}

function candidatesByWord(rows: CandidateRow[]): Map<string, TermCandidate[]> {
  const byWord = new Map<string, TermCandidate[]>();
  for (const row of rows) byWord.set(row.word, [...(byWord.get(row.word) ?? []), { term: row.term, frequency: row.frequency }]);
  return byWord;
}

/** The slots with each word that has candidates within its typo budget replaced by the closest; undefined if none. */
function correctTypos(slots: Slot[], candidates: Map<string, TermCandidate[]>): Slot[] | undefined {
  let corrected = false;
  const result = slots.map((slot) => {
    const [word] = slot.words;
    const terms = closestTerms(word, slot.prefix, candidates.get(word) ?? [], MAX_CORRECTIONS_PER_WORD);
    if (terms.length === 0) return slot;
    corrected = true;
    return { words: terms, prefix: slot.prefix, factor: CORRECTED_FACTOR };
  });
  return corrected ? result : undefined;
}

/** The candidates within the word's typo budget, nearest first, then the most frequent. */
function closestTerms(word: string, prefix: boolean, candidates: TermCandidate[], max: number): string[] {
  const budget = typoBudget(word);
  return candidates
    .filter((candidate) => candidate.term !== word)
    .map((candidate) => ({ ...candidate, distance: typoDistance(word, candidate.term, prefix) }))
    .filter((candidate) => candidate.distance <= budget)
    .sort((a, b) => a.distance - b.distance || b.frequency - a.frequency)
    .slice(0, max)
    .map((candidate) => candidate.term);
}

/** Slots as parallel arrays for unnest (a slot's words joined by spaces: words never hold one). */
function slotParameters(slots: Slot[]): { texts: string[]; prefixes: boolean[]; factors: number[] } {
  return {
    texts: slots.map((slot) => slot.words.join(" ")),
    prefixes: slots.map((slot) => slot.prefix),
    factors: slots.map((slot) => slot.factor),
  };
}

function toRecord(row: HitRow): SearchRecord {
  return {
    type: row.type,
    id: row.id,
    userId: row.user_id,
    ...(row.course_id === null ? {} : { courseId: row.course_id }),
    title: row.title,
    keywords: row.keywords,
    description: row.description,
    content: row.content,
    ...(row.difficulty === null ? {} : { difficulty: row.difficulty }),
    ...(row.status === null ? {} : { status: row.status }),
    metadata: row.metadata,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * Serialises the writes of each user (terms are counted per user: two transactions adding the same record must not
 * both count its terms). Sorted, so that batches naming several users never wait for each other in a circle.
 */
async function lockUsers(tx: Transaction, userIds: string[]): Promise<void> {
  const users = [...new Set(userIds)].sort();
  await tx.$executeRaw`
    SELECT pg_advisory_xact_lock(${USER_LOCK_CLASS}::int, hashtext(u.user_id))
    FROM (SELECT user_id FROM unnest(${users}::text[]) WITH ORDINALITY AS t(user_id, ord) ORDER BY ord) u`;
}

/** Changes of search_term frequencies, netted per (user, term), applied in one statement each. */
class TermDeltas {
  private readonly deltas = new Map<string, { userId: string; term: string; amount: number }>();

  add(userId: string, terms: string[], amount: number): void {
    for (const term of terms) {
      const key = JSON.stringify([userId, term]);
      const entry = this.deltas.get(key) ?? { userId, term, amount: 0 };
      entry.amount += amount;
      this.deltas.set(key, entry);
    }
  }

  async apply(tx: Transaction): Promise<void> {
    const changes = [...this.deltas.values()].filter((change) => change.amount !== 0);
    if (changes.length === 0) return;
    const users = changes.map((change) => change.userId);
    const terms = changes.map((change) => change.term);
    const amounts = changes.map((change) => change.amount);
    await tx.$executeRaw`
      INSERT INTO search_term (user_id, term, frequency)
      SELECT user_id, term, amount FROM unnest(${users}::text[], ${terms}::text[], ${amounts}::int[]) AS t(user_id, term, amount)
      ORDER BY user_id, term
      ON CONFLICT (user_id, term) DO UPDATE SET frequency = search_term.frequency + excluded.frequency`;
    await tx.$executeRaw`
      DELETE FROM search_term s USING unnest(${users}::text[], ${terms}::text[]) AS t(user_id, term)
      WHERE s.user_id = t.user_id AND s.term = t.term AND s.frequency <= 0`;
  }
}
