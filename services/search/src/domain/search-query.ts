import { AppError, type FieldViolation } from "@study/platform/errors";
import { DIFFICULTIES, RECORD_TYPES, STATUSES, type Difficulty, type RecordStatus, type RecordType } from "./search-record";

/**
 * The rules of `GET /api/search` and `/api/search/suggestions` (spec "Search", "Limits", "Search codes"): the
 * query parameters arrive as the client sent them (strings, absent when not sent) and are parsed here, so that
 * the codes the client sees are decided in one place.
 */

export const QUERY_MAX_LENGTH = 500;
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
export const DEFAULT_MIN_RELEVANCE = 0.1;
export const SUGGESTIONS_MIN_LENGTH = 2;
export const SUGGESTIONS_MAX_LENGTH = 100;

/** The query parameters of GET /api/search, verbatim. */
export interface RawSearchQuery {
  query?: string;
  types?: string;
  courseId?: string;
  limit?: string;
  offset?: string;
  minRelevance?: string;
  startDate?: string;
  endDate?: string;
  difficulty?: string;
  status?: string;
}

export interface SearchQuery {
  /** The user's words, trimmed, 1-500 characters. */
  text: string;
  /** Empty: every type. */
  types: RecordType[];
  courseId?: string;
  limit: number;
  offset: number;
  minRelevance: number;
  /** As sent (YYYY-MM-DD), for the echo. */
  startDate?: string;
  endDate?: string;
  /** Creation range in UTC: from the start of startDate, up to (excluding) the day after endDate. */
  createdFrom?: Date;
  createdBefore?: Date;
  difficulty: Difficulty[];
  status: RecordStatus[];
}

const validation = (field: string, message: string) => AppError.validation(`${field} ${message}`, [{ field, message }]);

const invalidNumber = (code: string, field: string, message: string) =>
  new AppError("validation", code, `${field} ${message}`, { details: [{ field, message } satisfies FieldViolation] });

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A comma list of known values: blanks between commas are ignored, duplicates dropped, anything unknown refused. */
function commaList<T extends string>(field: string, raw: string | undefined, allowed: readonly T[]): T[] {
  if (raw === undefined) return [];
  const values = raw
    .split(",")
    .map((value) => value.trim())
    .filter(Boolean);
  const unknown = values.filter((value) => !(allowed as readonly string[]).includes(value));
  if (unknown.length > 0) throw validation(field, `has unknown values ${unknown.join(", ")}; allowed: ${allowed.join(", ")}`);
  return [...new Set(values as T[])];
}

/** An optional integer parameter: absent or blank gives the default; anything else must be an integer in range. */
function integer(raw: string | undefined, fallback: number, inRange: (value: number) => boolean): number | null {
  if (raw === undefined || raw.trim() === "") return fallback;
  const text = raw.trim();
  if (!INTEGER.test(text)) return null;
  const value = Number(text);
  return inRange(value) ? value : null;
}

/** A real calendar date written YYYY-MM-DD, as midnight UTC of that day. */
function calendarDate(field: string, raw: string | undefined): Date | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const match = ISO_DATE.exec(raw.trim());
  const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  // Date.UTC rolls 2025-02-30 over to March 2: a real date reads back as written.
  if (
    !match ||
    !date ||
    date.getUTCFullYear() !== Number(match[1]) ||
    date.getUTCMonth() !== Number(match[2]) - 1 ||
    date.getUTCDate() !== Number(match[3])
  ) {
    throw validation(field, "must be a date written YYYY-MM-DD");
  }
  return date;
}

/**
 * Parses and validates a search. Codes: VALIDATION_ERROR (query missing, blank or over 500 characters; an unknown
 * type, difficulty or status; a date not written YYYY-MM-DD), INVALID_LIMIT (not an integer 1-100),
 * INVALID_OFFSET (not an integer ≥ 0), INVALID_MIN_RELEVANCE (not a number 0-1), INVALID_DATE_RANGE (startDate
 * after endDate). Both dates are whole UTC days and endDate is inclusive: a record created at any time on
 * endDate matches (the range ends before the next day starts).
 */
export function parseSearchQuery(raw: RawSearchQuery): SearchQuery {
  const text = (raw.query ?? "").trim();
  if (text.length === 0) throw validation("query", "is required");
  if (text.length > QUERY_MAX_LENGTH) throw validation("query", `must be at most ${QUERY_MAX_LENGTH} characters`);

  const types = commaList("types", raw.types, RECORD_TYPES);
  const difficulty = commaList("difficulty", raw.difficulty, DIFFICULTIES);
  const status = commaList("status", raw.status, STATUSES);

  const limit = integer(raw.limit, DEFAULT_LIMIT, (value) => value >= 1 && value <= MAX_LIMIT);
  if (limit === null) throw invalidNumber("INVALID_LIMIT", "limit", `must be an integer between 1 and ${MAX_LIMIT}`);
  const offset = integer(raw.offset, 0, (value) => value >= 0 && Number.isSafeInteger(value));
  if (offset === null) throw invalidNumber("INVALID_OFFSET", "offset", "must be an integer of 0 or more");
  const minRelevance = relevance(raw.minRelevance);
  if (minRelevance === null) throw invalidNumber("INVALID_MIN_RELEVANCE", "minRelevance", "must be a number between 0 and 1");

  const start = calendarDate("startDate", raw.startDate);
  const end = calendarDate("endDate", raw.endDate);
  if (start && end && start.getTime() > end.getTime()) {
    throw invalidNumber("INVALID_DATE_RANGE", "startDate", "must not be after endDate");
  }
  const courseId = raw.courseId?.trim() || undefined;

  return {
    text,
    types,
    courseId,
    limit,
    offset,
    minRelevance,
    startDate: start ? raw.startDate?.trim() : undefined,
    endDate: end ? raw.endDate?.trim() : undefined,
    createdFrom: start,
    createdBefore: end ? new Date(end.getTime() + DAY_MS) : undefined,
    difficulty,
    status,
  };
}

function relevance(raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === "") return DEFAULT_MIN_RELEVANCE;
  const text = raw.trim();
  if (!DECIMAL.test(text)) return null;
  const value = Number(text);
  return value >= 0 && value <= 1 ? value : null;
}

/**
 * The prefix of GET /api/search/suggestions, trimmed: QUERY_TOO_SHORT under 2 characters (missing included),
 * VALIDATION_ERROR over 100.
 */
export function parseSuggestionsQuery(raw: string | undefined): string {
  const text = (raw ?? "").trim();
  if (text.length < SUGGESTIONS_MIN_LENGTH) {
    throw new AppError("validation", "QUERY_TOO_SHORT", `query must be at least ${SUGGESTIONS_MIN_LENGTH} characters`, {
      details: [{ field: "query", message: `must be at least ${SUGGESTIONS_MIN_LENGTH} characters` }],
    });
  }
  if (text.length > SUGGESTIONS_MAX_LENGTH) throw validation("query", `must be at most ${SUGGESTIONS_MAX_LENGTH} characters`);
  return text;
}
