import type { Logger } from "@study/platform";
import {
  Meilisearch,
  MeilisearchApiError,
  MeilisearchRequestError,
  MeilisearchTaskTimeOutError,
  type EnqueuedTaskPromise,
  type Index,
  type SearchResponse,
  type WaitOptions,
} from "meilisearch";
import type { IndexHit, IndexPage, IndexQuery, SearchIndex } from "../../../application/ports/search-index.port";
import {
  DIFFICULTIES,
  STATUSES,
  isRecordType,
  type Difficulty,
  type RecordKey,
  type RecordStatus,
  type RecordType,
  type SearchRecord,
} from "../../../domain/search-record";

/**
 * The search index on a Meilisearch server, through the official client.
 *
 * One index (`search_records` unless named) holds every user's records; each document carries its `userId` and
 * every search, suggestion and user-wide delete is filtered on it (tenant isolation is the filter, so it is never
 * optional). Filters are built by `meilisearchFilter` only: values are always quoted and escaped, field names come
 * from a fixed list. (Meilisearch compares filter strings trimmed and lower-cased: user ids are UUIDs, which that
 * never merges.)
 *
 * Writes wait for their Meilisearch task, so a caller that upserted can search its own write at once.
 *
 * Queries are the user's words only (see queryWords), with matchingStrategy "all": every word must match, the last
 * one also as a prefix, with Meilisearch's typo tolerance (1 typo from 5 letters, 2 from 9).
 *
 * relevanceScore is Meilisearch's `_rankingScore` (showRankingScore): already 0-1, computed from the ranking rules
 * in order (words matched, typos, proximity, attribute — title before keywords, description, content —, exactness),
 * the earlier rule weighing more; a perfect title match scores 1. minRelevance is passed as `rankingScoreThreshold`,
 * so hits below it are neither returned nor counted.
 *
 * Totals are exact: searches use finite pagination (`page`/`hitsPerPage`), which makes Meilisearch count every
 * match (`totalHits`) instead of estimating (`estimatedTotalHits` of offset/limit); an offset that is not a multiple
 * of the limit is served from page 1 with `hitsPerPage = offset + limit`. Counts and offsets stop at the index's
 * `pagination.maxTotalHits` (set to MAX_TOTAL_HITS). resultsByType comes from the `type` facet distribution, which
 * Meilisearch computes over every match above the threshold.
 */

/** The index settings: searchable attributes in ranking priority order. */
export const MEILISEARCH_INDEX_SETTINGS = {
  searchableAttributes: ["title", "keywords", "description", "content"],
  filterableAttributes: ["userId", "courseId", "type", "difficulty", "status", "createdAt"],
  sortableAttributes: ["createdAt"],
  typoTolerance: { enabled: true },
  pagination: { maxTotalHits: 10_000 },
};
const MAX_TOTAL_HITS = MEILISEARCH_INDEX_SETTINGS.pagination.maxTotalHits;

const DEFAULT_INDEX_NAME = "search_records";
const PRIMARY_KEY = "key";
/**
 * Meilisearch does not escape the text around its highlight tags, so it is asked for private-use characters as tags:
 * the snippet is HTML-escaped, then they become `<mark>`/`</mark>` (only those are markup in a snippet).
 */
const HIGHLIGHT_PRE_TAG = "\uE000";
const HIGHLIGHT_POST_TAG = "\uE001";
/** Words around the match in a snippet. */
const SNIPPET_WORDS = 30;
/** Polling of a task: a write usually finishes within a few milliseconds. */
const TASK_WAIT: WaitOptions = { timeout: 30_000, interval: 10 };
/** A settings change re-indexes every document: on a large index that takes minutes. */
const SETTINGS_WAIT: WaitOptions = { timeout: 600_000, interval: 100 };

/** A record as stored in Meilisearch: dates as unix milliseconds (filterable with `>=`/`<`), absent values null. */
export interface SearchDocument {
  key: string;
  type: RecordType;
  id: string;
  userId: string;
  courseId: string | null;
  title: string;
  keywords: string[];
  description: string;
  content: string;
  difficulty: Difficulty | null;
  status: RecordStatus | null;
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

const DOCUMENT_FIELDS: (keyof SearchDocument)[] = [
  "key",
  "type",
  "id",
  "userId",
  "courseId",
  "title",
  "keywords",
  "description",
  "content",
  "difficulty",
  "status",
  "metadata",
  "createdAt",
  "updatedAt",
];

/** An error answered by Meilisearch (or the failure to reach it), with Meilisearch's error code. */
export class MeilisearchIndexError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`Meilisearch ${code}: ${message}`, options);
    this.name = "MeilisearchIndexError";
  }
}

/**
 * A document id Meilisearch accepts (`[A-Za-z0-9_-]`, at most 511 bytes) naming a record: `<type>-<id>`, with every
 * other character of the id (and `_` itself) written as `_` + two hex digits per UTF-8 byte, so that distinct
 * records never share a key. Types contain no `-`.
 */
export function documentKey(key: RecordKey): string {
  const safeId = [...Buffer.from(key.id, "utf8")]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9-]/.test(char) ? char : `_${byte.toString(16).padStart(2, "0")}`;
    })
    .join("");
  return `${key.type}-${safeId}`;
}

export type FilterableField = "userId" | "courseId" | "type" | "difficulty" | "status" | "createdAt";

export type FilterCondition =
  | { field: FilterableField; operator: "=" | "!=" | ">=" | ">" | "<=" | "<"; value: string | number }
  | { field: FilterableField; in: readonly (string | number)[] };

/** A value inside a Meilisearch filter: double-quoted, `\` and `"` escaped with a backslash. */
function quoteFilterValue(value: string | number): string {
  return `"${String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/**
 * The only way this adapter builds a Meilisearch filter: the conditions joined with AND. Field names come from the
 * FilterableField type, every value is quoted and escaped (numbers too: Meilisearch compares a quoted number as a
 * number), so no value can change the expression's structure.
 */
export function meilisearchFilter(conditions: readonly FilterCondition[]): string {
  return conditions
    .map((condition) =>
      "in" in condition
        ? `${condition.field} IN [${condition.in.map(quoteFilterValue).join(", ")}]`
        : `${condition.field} ${condition.operator} ${quoteFilterValue(condition.value)}`,
    )
    .join(" AND ");
}

function toDocument(record: SearchRecord): SearchDocument {
  return {
    key: documentKey(record),
    type: record.type,
    id: record.id,
    userId: record.userId,
    courseId: record.courseId ?? null,
    title: record.title,
    keywords: record.keywords,
    description: record.description,
    content: record.content,
    difficulty: record.difficulty ?? null,
    status: record.status ?? null,
    metadata: record.metadata,
    createdAt: record.createdAt.getTime(),
    updatedAt: record.updatedAt.getTime(),
  };
}

function toRecord(document: SearchDocument): SearchRecord {
  const difficulty = DIFFICULTIES.find((value) => value === document.difficulty);
  const status = STATUSES.find((value) => value === document.status);
  return {
    type: document.type,
    id: document.id,
    userId: document.userId,
    ...(document.courseId ? { courseId: document.courseId } : {}),
    title: document.title,
    keywords: document.keywords,
    description: document.description,
    content: document.content,
    ...(difficulty ? { difficulty } : {}),
    ...(status ? { status } : {}),
    metadata: document.metadata,
    createdAt: new Date(document.createdAt),
    updatedAt: new Date(document.updatedAt),
  };
}

/** The filter of a search: the user always, then the optional restrictions. */
function searchConditions(query: IndexQuery): FilterCondition[] {
  const conditions: FilterCondition[] = [{ field: "userId", operator: "=", value: query.userId }];
  if (query.types?.length) conditions.push({ field: "type", in: query.types });
  if (query.courseId !== undefined) conditions.push({ field: "courseId", operator: "=", value: query.courseId });
  if (query.createdFrom) conditions.push({ field: "createdAt", operator: ">=", value: query.createdFrom.getTime() });
  if (query.createdBefore) conditions.push({ field: "createdAt", operator: "<", value: query.createdBefore.getTime() });
  if (query.difficulty?.length) conditions.push({ field: "difficulty", in: query.difficulty });
  if (query.status?.length) conditions.push({ field: "status", in: query.status });
  return conditions;
}

/**
 * Finite pagination for any offset/limit: a page of `limit` when the offset falls on a page boundary, else page 1
 * of `offset + limit` hits of which the first `offset` are skipped.
 */
function pageFor(offset: number, limit: number): { page: number; hitsPerPage: number; skip: number } {
  if (offset % limit === 0) return { page: offset / limit + 1, hitsPerPage: limit, skip: 0 };
  return { page: 1, hitsPerPage: offset + limit, skip: offset };
}

const MARKED = new RegExp(
  `([\\p{L}\\p{N}]*)${HIGHLIGHT_PRE_TAG}([^${HIGHLIGHT_PRE_TAG}${HIGHLIGHT_POST_TAG}]*)${HIGHLIGHT_POST_TAG}([\\p{L}\\p{N}]*)`,
  "gu",
);
const MARK_PAIR = new RegExp(`${HIGHLIGHT_PRE_TAG}([^${HIGHLIGHT_PRE_TAG}${HIGHLIGHT_POST_TAG}]*)${HIGHLIGHT_POST_TAG}`, "gu");
const STRAY_MARK = new RegExp(`[${HIGHLIGHT_PRE_TAG}${HIGHLIGHT_POST_TAG}]`, "gu");

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** A formatted text as HTML: the record's text escaped, Meilisearch's matches marked with `<mark>`. */
function snippetHtml(formatted: string): string {
  return formatted
    .replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char)
    .replace(MARK_PAIR, "<mark>$1</mark>")
    .replace(STRAY_MARK, "");
}

/**
 * The words of the user's query, space-separated; undefined when there are none. Meilisearch gives quotes (phrases)
 * and a leading `-` (exclusion) a meaning, and searches everything for a query without words: here a query is
 * only its words, and a query without any finds nothing.
 */
function queryWords(text: string): string | undefined {
  const words = text.match(/[\p{L}\p{N}]+/gu);
  return words ? words.join(" ") : undefined;
}

/** The words of a highlighted text that contain a match, whole (a prefix match `<mark>alg</mark>ebra` gives "algebra"). */
function markedWords(formatted: string): string[] {
  return [...formatted.matchAll(MARKED)].map((match) => `${match[1]}${match[2]}${match[3]}`);
}

function formattedText(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  return [];
}

/** Distinct strings (case-insensitive), first occurrence kept. */
function distinct(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const normalised = value.toLocaleLowerCase();
    if (!value || seen.has(normalised)) return false;
    seen.add(normalised);
    return true;
  });
}

export class MeilisearchSearchIndex implements SearchIndex {
  private constructor(
    private readonly index: Index<SearchDocument>,
    private readonly logger: Logger,
  ) {}

  /**
   * Connects, creates the index when it does not exist (primary key `key`) and applies the settings, waiting for
   * both tasks: the index is ready for searches when this resolves.
   */
  static async open(options: { url: string; apiKey?: string; indexName?: string }, logger: Logger): Promise<MeilisearchSearchIndex> {
    const client = new Meilisearch({ host: options.url, ...(options.apiKey ? { apiKey: options.apiKey } : {}) });
    const indexName = options.indexName ?? DEFAULT_INDEX_NAME;
    await meilisearchCall(async () => {
      const existing = await client.getRawIndex(indexName).catch((error: unknown) => {
        if (error instanceof MeilisearchApiError && error.cause?.code === "index_not_found") return undefined;
        throw error;
      });
      if (!existing) {
        await completed(client.createIndex(indexName, { primaryKey: PRIMARY_KEY }), ["index_already_exists"]);
        logger.info({ indexName }, "created the Meilisearch index");
      } else if (existing.primaryKey !== undefined && existing.primaryKey !== null && existing.primaryKey !== PRIMARY_KEY) {
        throw new MeilisearchIndexError(
          "index_primary_key_mismatch",
          `index ${indexName} has primary key ${existing.primaryKey}, expected ${PRIMARY_KEY}`,
        );
      }
      const index = client.index<SearchDocument>(indexName);
      await completed(index.updateSettings(MEILISEARCH_INDEX_SETTINGS), [], SETTINGS_WAIT);
    });
    return new MeilisearchSearchIndex(client.index<SearchDocument>(indexName), logger);
  }

  async upsert(records: SearchRecord[]): Promise<void> {
    if (records.length === 0) return;
    await meilisearchCall(() => completed(this.index.addDocuments(records.map(toDocument), { primaryKey: PRIMARY_KEY })));
  }

  /** By document key: a record's key names exactly one user's record. */
  async remove(keys: RecordKey[]): Promise<void> {
    if (keys.length === 0) return;
    await meilisearchCall(() => completed(this.index.deleteDocuments(keys.map(documentKey))));
  }

  async removeUser(userId: string): Promise<void> {
    const filter = meilisearchFilter([{ field: "userId", operator: "=", value: userId }]);
    await meilisearchCall(() => completed(this.index.deleteDocuments({ filter })));
    this.logger.debug({ userId }, "removed every record of the user from the Meilisearch index");
  }

  async search(query: IndexQuery): Promise<IndexPage> {
    const words = queryWords(query.text);
    if (words === undefined) return { hits: [], total: 0, byType: {} };
    const { page, hitsPerPage, skip } = pageFor(query.offset, query.limit);
    const response = await meilisearchCall(() =>
      this.index.search(words, {
        filter: meilisearchFilter(searchConditions(query)),
        page,
        hitsPerPage,
        // every word must match (Meilisearch's default, "last", drops words from the end when too few match)
        matchingStrategy: "all",
        facets: ["type"],
        showRankingScore: true,
        rankingScoreThreshold: query.minRelevance,
        attributesToRetrieve: DOCUMENT_FIELDS,
        attributesToHighlight: ["title", "keywords", "description", "content"],
        highlightPreTag: HIGHLIGHT_PRE_TAG,
        highlightPostTag: HIGHLIGHT_POST_TAG,
        attributesToCrop: [`description:${SNIPPET_WORDS}`, `content:${SNIPPET_WORDS}`],
        cropMarker: "…",
      }),
    );
    const byType: Partial<Record<RecordType, number>> = {};
    for (const [type, count] of Object.entries(response.facetDistribution?.type ?? {})) {
      if (isRecordType(type) && count > 0) byType[type] = count;
    }
    return { hits: response.hits.slice(skip).map(toHit), total: Math.min(response.totalHits, MAX_TOTAL_HITS), byType };
  }

  /**
   * The user's titles and keywords matching the prefix (typo-tolerant, the last word as a prefix), best match first:
   * the titles of the matching records, then the matching keywords.
   */
  async suggest(userId: string, prefix: string, limit: number): Promise<string[]> {
    const words = queryWords(prefix);
    if (words === undefined) return [];
    const response = await meilisearchCall(() =>
      this.index.search(words, {
        filter: meilisearchFilter([{ field: "userId", operator: "=", value: userId }]),
        attributesToSearchOn: ["title", "keywords"],
        matchingStrategy: "all",
        attributesToRetrieve: ["title", "keywords"],
        attributesToHighlight: ["title", "keywords"],
        highlightPreTag: HIGHLIGHT_PRE_TAG,
        highlightPostTag: HIGHLIGHT_POST_TAG,
        limit: Math.min(limit * 3, 100),
      }),
    );
    const titles: string[] = [];
    const keywords: string[] = [];
    for (const hit of response.hits) {
      const formatted = hit._formatted ?? {};
      if (formattedText(formatted.title).some((title) => title.includes(HIGHLIGHT_PRE_TAG))) titles.push(hit.title);
      formattedText(formatted.keywords).forEach((keyword, position) => {
        if (keyword.includes(HIGHLIGHT_PRE_TAG)) keywords.push(hit.keywords[position] ?? "");
      });
    }
    return distinct([...titles, ...keywords]).slice(0, limit);
  }
}

type SearchHit = SearchResponse<SearchDocument>["hits"][number];

function toHit(hit: SearchHit): IndexHit {
  const formatted = hit._formatted ?? {};
  const fields = [formatted.title, formatted.keywords, formatted.description, formatted.content].map(formattedText);
  const highlights = distinct(fields.flat().flatMap(markedWords));
  // The snippet comes from the most informative field that matched: the content, else the description, else the title.
  const [titleTexts, keywordTexts, descriptionTexts, contentTexts] = fields;
  const matched = (texts: string[]) => texts.find((text) => text.includes(HIGHLIGHT_PRE_TAG));
  const snippet = snippetHtml(
    matched(contentTexts) ??
      matched(descriptionTexts) ??
      matched(titleTexts) ??
      matched(keywordTexts) ??
      (descriptionTexts[0] || contentTexts[0] || titleTexts[0] || ""),
  );
  return { record: toRecord(hit), relevanceScore: clampScore(hit._rankingScore), snippet, highlights };
}

function clampScore(score: number | undefined): number {
  return Math.min(1, Math.max(0, score ?? 0));
}

/**
 * Waits for the task behind a write; a task that failed becomes a MeilisearchIndexError with its code (unless the
 * code is one the caller accepts, such as an index that already exists).
 */
async function completed(enqueued: EnqueuedTaskPromise, acceptedErrorCodes: string[] = [], wait: WaitOptions = TASK_WAIT): Promise<void> {
  const task = await enqueued.waitTask(wait);
  if (task.status === "succeeded") return;
  const code = task.error?.code ?? `task_${task.status}`;
  if (task.status === "failed" && acceptedErrorCodes.includes(code)) return;
  throw new MeilisearchIndexError(code, task.error?.message ?? `task ${task.uid} ${task.status}`);
}

/** Runs a client call, turning the client's errors into MeilisearchIndexError with Meilisearch's code. */
async function meilisearchCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof MeilisearchIndexError) throw error;
    if (error instanceof MeilisearchApiError) {
      const code = error.cause?.code ?? `http_${error.response.status}`;
      throw new MeilisearchIndexError(code, error.cause?.message ?? error.message, { cause: error });
    }
    if (error instanceof MeilisearchRequestError) throw new MeilisearchIndexError("request_failed", error.message, { cause: error });
    if (error instanceof MeilisearchTaskTimeOutError) throw new MeilisearchIndexError("task_timeout", error.message, { cause: error });
    throw new MeilisearchIndexError("client_error", error instanceof Error ? error.message : String(error), { cause: error });
  }
}
