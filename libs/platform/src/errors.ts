/**
 * One error type for the whole system. A domain or use case throws an AppError; the gRPC layer turns its
 * kind into a status code (plus the code/details in trailing metadata) and the gateway turns it into an HTTP
 * status and the spec's envelope. Anything that is not an AppError is an internal error.
 */
export type ErrorKind =
  | "validation"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "precondition"
  | "too_large"
  | "rate_limited"
  | "unavailable"
  /** An outside service we depend on (Google, …) answered with a failure: 502, and never retried by gRPC clients. */
  | "upstream"
  | "timeout"
  | "internal";

export interface FieldViolation {
  field: string;
  message: string;
}

export interface AppErrorOptions {
  details?: FieldViolation[];
  action?: string;
  cause?: unknown;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly details: FieldViolation[];
  readonly action?: string;

  constructor(kind: ErrorKind, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.kind = kind;
    this.code = code;
    this.details = options.details ?? [];
    this.action = options.action;
  }

  static validation(message: string, details: FieldViolation[] = []): AppError {
    return new AppError("validation", "VALIDATION_ERROR", message, { details });
  }

  static notFound(what: string, code = "NOT_FOUND"): AppError {
    return new AppError("not_found", code, `${what} not found`);
  }

  static unauthenticated(message = "Authentication required", code = "UNAUTHORIZED"): AppError {
    return new AppError("unauthenticated", code, message);
  }

  static internal(message = "An unexpected error occurred"): AppError {
    return new AppError("internal", "INTERNAL_ERROR", message);
  }
}

/**
 * A field the code relies on but the type leaves optional (ts-proto makes every message field of a response
 * optional): returns it, or fails with an internal error naming what was missing instead of a TypeError
 * further on. `required(reply.course, "course in GetCourse reply")`.
 */
export function required<T>(value: T | null | undefined, what: string): T {
  if (value === undefined || value === null) throw AppError.internal(`Missing ${what}`);
  return value;
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** HTTP status per error kind: the single table the gateway uses. */
export const HTTP_STATUS_BY_KIND: Record<ErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  // The spec answers business-rule refusals (INVALID_CODE, NOT_PENDING, job already finished...) with 400.
  precondition: 400,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  upstream: 502,
  timeout: 504,
  internal: 500,
};

/**
 * SQLSTATEs that say the statement never ran or was rolled back because the server is going away or not there
 * yet: connection exceptions (class 08), admin and crash shutdown (57P01, 57P02), starting up or recovering
 * (57P03), no connection slot (53300).
 */
const DATABASE_GONE_STATES = /^(08...|57P0[123]|53300)$/;
/** Socket errors of a connection that could not be opened. */
const CONNECT_FAILURES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"]);
/** Prisma's codes for the same: server not reachable (P1001), too many connections (P2037). */
const PRISMA_GONE_CODES = new Set(["P1001", "P2037"]);

/**
 * Whether a failure means "the database is not there right now" (so 503, safe to retry: nothing was written)
 * rather than a fault of the code: the shapes node-postgres, pg-pool and Prisma's pg adapter give it, followed
 * through `cause` and Prisma's `meta.driverAdapterError`. A connection lost while a statement ran ("Connection
 * terminated unexpectedly", ECONNRESET) is not among them: that statement may have committed, and a retry could
 * write twice, so it stays an internal error.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = error; typeof current === "object" && current !== null && !seen.has(current);) {
    seen.add(current);
    const { code, message, cause, meta, kind, originalCode } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      meta?: { driverAdapterError?: unknown };
      kind?: unknown;
      originalCode?: unknown;
    };
    if (typeof code === "string" && (CONNECT_FAILURES.has(code) || DATABASE_GONE_STATES.test(code) || PRISMA_GONE_CODES.has(code))) return true;
    if (typeof originalCode === "string" && DATABASE_GONE_STATES.test(originalCode)) return true;
    if (kind === "DatabaseNotReachable" || kind === "TooManyConnections") return true;
    // pg-pool, when no connection could be opened within connectionTimeoutMillis.
    if (typeof message === "string" && message.startsWith("timeout exceeded when trying to connect")) return true;
    current = meta?.driverAdapterError ?? cause;
  }
  return false;
}

/** The AppError for a failure that `isDatabaseUnavailable`: 503 SERVICE_UNAVAILABLE. */
export const databaseUnavailable = (cause: unknown): AppError =>
  new AppError("unavailable", "SERVICE_UNAVAILABLE", "The database is unavailable; try again shortly", { cause });
