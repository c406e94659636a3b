import { randomUUID } from "node:crypto";
import { formatText, queryTerms, scoreDocument, type MatchingStrategy } from "./engine";
import { badRequest, invalidType, unknownField } from "./errors";
import { filterFields, matchesFilter, normaliseFacet, parseFilterParameter, checkNumericComparisons, type FilterNode } from "./filter";
import type { StandInIndex } from "./state";

/** The fields of POST /indexes/:uid/search (Meilisearch's SearchQuery), in its order. */
const SEARCH_FIELDS = [
  "q",
  "vector",
  "media",
  "hybrid",
  "offset",
  "limit",
  "page",
  "hitsPerPage",
  "attributesToRetrieve",
  "retrieveVectors",
  "attributesToCrop",
  "cropLength",
  "attributesToHighlight",
  "showMatchesPosition",
  "showRankingScore",
  "showRankingScoreDetails",
  "showPerformanceDetails",
  "filter",
  "sort",
  "distinct",
  "facets",
  "highlightPreTag",
  "highlightPostTag",
  "cropMarker",
  "matchingStrategy",
  "attributesToSearchOn",
  "rankingScoreThreshold",
  "locales",
  "personalize",
  "useNetwork",
] as const;

/** Known to Meilisearch, not evaluated by the stand-in: refused so that a test never passes on an ignored parameter. */
const NOT_SUPPORTED = [
  "vector",
  "media",
  "hybrid",
  "showMatchesPosition",
  "showRankingScoreDetails",
  "sort",
  "distinct",
  "locales",
  "personalize",
  "useNetwork",
];

const codeOf = (field: string) => `invalid_search_${field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;

interface SearchRequest {
  q: string;
  offset: number;
  limit: number;
  page?: number;
  hitsPerPage?: number;
  attributesToRetrieve: string[];
  attributesToCrop?: string[];
  cropLength: number;
  cropMarker: string;
  attributesToHighlight?: string[];
  highlightPreTag: string;
  highlightPostTag: string;
  showRankingScore: boolean;
  filter?: FilterNode;
  filterText: string;
  facets?: string[];
  matchingStrategy: MatchingStrategy;
  attributesToSearchOn?: string[];
  rankingScoreThreshold?: number;
}

function readNonNegativeInteger(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw invalidType(codeOf(field), `.${field}`, "a positive integer", value);
  return value;
}

function readString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalidType(codeOf(field), `.${field}`, "a string", value);
  return value;
}

function readBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalidType(codeOf(field), `.${field}`, "a boolean", value);
  return value;
}

function readStrings(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalidType(codeOf(field), `.${field}`, "an array", value);
  value.forEach((item: unknown, index) => {
    if (typeof item !== "string") throw invalidType(codeOf(field), `.${field}[${index}]`, "a string", item);
  });
  return value as string[];
}

/** Validates a search body as Meilisearch's deserializer does: unknown fields and wrong types are refused. */
export function parseSearchRequest(body: unknown): SearchRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest("bad_request", `Invalid value type: expected an object, but found ${JSON.stringify(body)}`);
  }
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!(SEARCH_FIELDS as readonly string[]).includes(key)) throw unknownField(key, SEARCH_FIELDS);
  }
  for (const key of NOT_SUPPORTED) {
    const value = fields[key];
    if (value !== undefined && value !== null && value !== false) {
      throw badRequest(
        codeOf(key),
        `The Meilisearch stand-in does not evaluate \`${key}\`; extend libs/testkit/src/meilisearch before relying on it.`,
      );
    }
  }
  const matchingStrategy = readString(fields, "matchingStrategy") ?? "last";
  if (!["last", "all", "frequency"].includes(matchingStrategy)) {
    throw badRequest(
      "invalid_search_matching_strategy",
      `Unknown value \`${matchingStrategy}\` at \`.matchingStrategy\`: expected one of \`last\`, \`all\`, \`frequency\``,
    );
  }
  const threshold = fields.rankingScoreThreshold;
  if (threshold !== undefined && threshold !== null) {
    if (typeof threshold !== "number") throw invalidType("invalid_search_ranking_score_threshold", ".rankingScoreThreshold", "a number", threshold);
    if (threshold < 0 || threshold > 1) {
      throw badRequest(
        "invalid_search_ranking_score_threshold",
        "Invalid value at `.rankingScoreThreshold`: the value of `rankingScoreThreshold` is invalid, expected a float between `0.0` and `1.0`.",
      );
    }
  }
  return {
    q: readString(fields, "q") ?? "",
    offset: readNonNegativeInteger(fields, "offset") ?? 0,
    limit: readNonNegativeInteger(fields, "limit") ?? 20,
    page: readNonNegativeInteger(fields, "page"),
    hitsPerPage: readNonNegativeInteger(fields, "hitsPerPage"),
    attributesToRetrieve: readStrings(fields, "attributesToRetrieve") ?? ["*"],
    attributesToCrop: readStrings(fields, "attributesToCrop"),
    cropLength: readNonNegativeInteger(fields, "cropLength") ?? 10,
    cropMarker: readString(fields, "cropMarker") ?? "…",
    attributesToHighlight: readStrings(fields, "attributesToHighlight"),
    highlightPreTag: readString(fields, "highlightPreTag") ?? "<em>",
    highlightPostTag: readString(fields, "highlightPostTag") ?? "</em>",
    showRankingScore: readBoolean(fields, "showRankingScore") ?? false,
    filter: parseFilterParameter(fields.filter),
    filterText: typeof fields.filter === "string" ? fields.filter : JSON.stringify(fields.filter),
    facets: readStrings(fields, "facets"),
    matchingStrategy: matchingStrategy as MatchingStrategy,
    attributesToSearchOn: readStrings(fields, "attributesToSearchOn"),
    rankingScoreThreshold: typeof threshold === "number" ? threshold : undefined,
  };
}

/** Meilisearch's refusal of a filter or facet on an attribute that is not filterable. */
export function checkFilterable(index: StandInIndex, node: FilterNode, expression: string, code: string): void {
  for (const { field, column } of filterFields(node)) {
    if (index.settings.filterableAttributes.includes(field)) continue;
    const available = index.settings.filterableAttributes.map((name) => `\`${name}\``).join(", ");
    const known = available
      ? `Available filterable attribute patterns are: ${available}.`
      : "This index does not have configured filterable attributes.";
    throw badRequest(
      code,
      `Index \`${index.uid}\`: Attribute \`${field}\` is not filterable. ${known}\n${column + 1}:${column + field.length} ${expression}`,
    );
  }
}

function stringified(value: unknown): unknown {
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map(stringified);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, stringified(inner)]));
  return value;
}

/** `attribute` or `attribute:length` → the attribute's crop length. */
function cropLengths(request: SearchRequest, retrieved: string[]): Map<string, number> {
  const lengths = new Map<string, number>();
  for (const entry of request.attributesToCrop ?? []) {
    const [name, length] = entry.split(":");
    const size = length === undefined ? request.cropLength : Number.parseInt(length, 10);
    for (const attribute of name === "*" ? retrieved : [name]) lengths.set(attribute, Number.isFinite(size) ? size : request.cropLength);
  }
  return lengths;
}

export function runSearch(index: StandInIndex, request: SearchRequest): Record<string, unknown> {
  const started = performance.now();
  const { settings } = index;
  if (request.filter) {
    checkFilterable(index, request.filter, request.filterText, "invalid_search_filter");
    checkNumericComparisons(request.filter, () => request.filterText, "invalid_search_filter");
  }
  for (const facet of request.facets ?? []) {
    if (!settings.filterableAttributes.includes(facet)) {
      const available = settings.filterableAttributes.map((name) => `\`${name}\``).join(", ");
      throw badRequest(
        "invalid_search_facets",
        `Invalid facet distribution: Attribute \`${facet}\` is not filterable. Available filterable attributes patterns are: ${available}.`,
      );
    }
  }
  const searchable = settings.searchableAttributes;
  for (const attribute of request.attributesToSearchOn ?? []) {
    if (!searchable.includes("*") && !searchable.includes(attribute)) {
      throw badRequest(
        "invalid_search_attributes_to_search_on",
        `Attribute \`${attribute}\` is not searchable. Available searchable attributes are: ${searchable.map((name) => `\`${name}\``).join(", ")}.`,
      );
    }
  }
  const terms = queryTerms(request.q);
  const ranking = {
    terms,
    searchable,
    searchOn: request.attributesToSearchOn,
    typoTolerance: settings.typoTolerance,
    matchingStrategy: request.matchingStrategy,
  };
  const matches: { document: Record<string, unknown>; score: number }[] = [];
  for (const document of index.documents.values()) {
    if (request.filter && !matchesFilter(request.filter, document)) continue;
    const score = scoreDocument(document, ranking);
    if (score === undefined) continue;
    if (request.rankingScoreThreshold !== undefined && score < request.rankingScoreThreshold) continue;
    matches.push({ document, score });
  }
  // Stable: documents that tie keep the order in which they were indexed, as Meilisearch's document ids do.
  matches.sort((left, right) => right.score - left.score);

  const maxTotalHits = settings.pagination.maxTotalHits;
  const finite = request.page !== undefined || request.hitsPerPage !== undefined;
  const hitsPerPage = request.hitsPerPage ?? 20;
  const page = request.page ?? 1;
  let offset = finite ? (page === 0 ? 0 : (page - 1) * hitsPerPage) : request.offset;
  let limit = finite ? (page === 0 ? 0 : hitsPerPage) : request.limit;
  offset = Math.min(offset, maxTotalHits);
  limit = Math.min(limit, Math.max(0, maxTotalHits - offset));
  const totalHits = Math.min(matches.length, maxTotalHits);

  const displayed = settings.displayedAttributes;
  const retrieveAll = request.attributesToRetrieve.includes("*");
  const highlighted = new Set(request.attributesToHighlight ?? []);
  const formatting = request.attributesToHighlight !== undefined || request.attributesToCrop !== undefined;

  const hits = matches.slice(offset, offset + limit).map(({ document, score }) => {
    const visible = Object.keys(document).filter((field) => displayed.includes("*") || displayed.includes(field));
    const retrieved = visible.filter((field) => retrieveAll || request.attributesToRetrieve.includes(field));
    const hit: Record<string, unknown> = Object.fromEntries(retrieved.map((field) => [field, document[field]]));
    if (formatting) {
      const crops = cropLengths(request, visible);
      const formatted: Record<string, unknown> = {};
      for (const field of new Set([...retrieved, ...[...highlighted, ...crops.keys()].filter((name) => visible.includes(name))])) {
        const highlight = highlighted.has("*") || highlighted.has(field);
        const cropLength = crops.get(field);
        const format = (value: unknown): unknown => {
          if (typeof value === "string" && (highlight || cropLength !== undefined)) {
            return formatText(value, {
              terms,
              typoTolerance: settings.typoTolerance,
              highlight: highlight ? { pre: request.highlightPreTag, post: request.highlightPostTag } : undefined,
              cropLength,
              cropMarker: request.cropMarker,
            });
          }
          if (Array.isArray(value)) return value.map(format);
          return stringified(value);
        };
        formatted[field] = format(document[field]);
      }
      hit._formatted = formatted;
    }
    if (request.showRankingScore) hit._rankingScore = score;
    return hit;
  });

  const response: Record<string, unknown> = { hits, query: request.q, processingTimeMs: Math.round(performance.now() - started) };
  if (finite) {
    Object.assign(response, { hitsPerPage, page, totalPages: hitsPerPage === 0 ? 0 : Math.ceil(totalHits / hitsPerPage), totalHits });
  } else {
    Object.assign(response, { limit, offset, estimatedTotalHits: totalHits });
  }
  if (request.facets) {
    const distribution: Record<string, Record<string, number>> = {};
    const stats: Record<string, { min: number; max: number }> = {};
    for (const facet of request.facets) {
      const counts = new Map<string, { value: string; count: number }>();
      const numbers: number[] = [];
      for (const { document } of matches) {
        const values = Array.isArray(document[facet]) ? (document[facet] as unknown[]) : [document[facet]];
        for (const value of new Set(values)) {
          if (typeof value === "number") numbers.push(value);
          if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") continue;
          const key = normaliseFacet(String(value));
          const entry = counts.get(key) ?? { value: String(value), count: 0 };
          entry.count++;
          counts.set(key, entry);
        }
      }
      const entries = [...counts.values()].sort((left, right) => left.value.localeCompare(right.value)).slice(0, settings.faceting.maxValuesPerFacet);
      distribution[facet] = Object.fromEntries(entries.map((entry) => [entry.value, entry.count]));
      if (numbers.length > 0) stats[facet] = { min: Math.min(...numbers), max: Math.max(...numbers) };
    }
    response.facetDistribution = distribution;
    response.facetStats = stats;
  }
  response.requestUid = randomUUID();
  return response;
}
