import { AppError, isAppError } from "@study/platform/errors";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";

/**
 * What the mapping reads of the SDK's APIError. `instanceof APIError` narrows an unknown to
 * `APIError<any, any, any>`, every field `any`; assigned to this type, each one is checked where it is read.
 */
interface UpstreamError {
  status: number | undefined;
  error: unknown;
  code: string | null | undefined;
  headers: Headers | undefined;
  message: string;
}

/** The upstream's own explanation (the JSON error's message), without the SDK's "<status> " prefix. */
function upstreamMessage(error: UpstreamError): string {
  const body = error.error;
  const message = typeof body === "object" && body !== null && "message" in body ? body.message : undefined;
  if (typeof message === "string" && message.trim()) return message.trim();
  return error.message.replace(/^\d{3}\s+/, "").trim() || "no details";
}

/** Seconds to wait according to `retry-after-ms` / `retry-after` (seconds or an HTTP date), when present. */
function retryAfterSeconds(headers: Headers | undefined): number | undefined {
  const milliseconds = Number(headers?.get("retry-after-ms"));
  if (headers?.get("retry-after-ms") && Number.isFinite(milliseconds)) return Math.max(0, Math.ceil(milliseconds / 1000));
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * Maps whatever an OpenAI SDK call threw to the system's AppError. The provider's credentials, quota and
 * outages are the operator's problem, not the caller's, so 401/403/quota become `unavailable` (503) rather
 * than `unauthenticated`: a 401 towards the client would read as "your session ended". The original error
 * stays in `cause` for the log.
 */
export function fromOpenAiError(error: unknown): AppError {
  if (isAppError(error)) return error;
  const cause = { cause: error };
  if (error instanceof APIConnectionTimeoutError) {
    return new AppError("timeout", "UPSTREAM_TIMEOUT", "The AI service did not answer in time", cause);
  }
  if (error instanceof APIUserAbortError) {
    return new AppError("unavailable", "AI_REQUEST_ABORTED", "The request to the AI service was aborted", cause);
  }
  if (error instanceof APIConnectionError) {
    const reason = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return new AppError("unavailable", "AI_UNREACHABLE", `The AI service could not be reached${reason}`, cause);
  }
  if (error instanceof APIError) return fromApiError(error, cause);
  return new AppError("internal", "INTERNAL_ERROR", "An unexpected error occurred", cause);
}

/** An HTTP answer of the AI service other than success. */
function fromApiError(error: UpstreamError, cause: { cause: unknown }): AppError {
  const status = error.status ?? 0;
  if (status === 401) {
    return new AppError("unavailable", "AI_AUTH_FAILED", "The AI service rejected the API key (HTTP 401): check OPENAI_API_KEY", cause);
  }
  if (status === 403) {
    return new AppError("unavailable", "AI_FORBIDDEN", `The AI service refused access (HTTP 403): ${upstreamMessage(error)}`, cause);
  }
  if (status === 404) {
    return new AppError(
      "unavailable",
      "AI_MODEL_NOT_FOUND",
      `The AI service does not offer the requested model or endpoint (HTTP 404): ${upstreamMessage(error)}`,
      cause,
    );
  }
  if (status === 408) {
    return new AppError("timeout", "UPSTREAM_TIMEOUT", "The AI service did not answer in time (HTTP 408)", cause);
  }
  if (status === 413) {
    return new AppError("too_large", "FILE_TOO_LARGE", "The AI service refused the upload as too large (HTTP 413)", cause);
  }
  if (status === 429) {
    // OpenAI answers 429 both for "slow down" and for an exhausted quota; only the first passes by waiting.
    if (error.code === "insufficient_quota") {
      return new AppError("unavailable", "AI_QUOTA_EXCEEDED", "The AI service account has no quota left (HTTP 429 insufficient_quota)", cause);
    }
    const seconds = retryAfterSeconds(error.headers);
    return new AppError("rate_limited", "RATE_LIMITED", "The AI service is rate-limiting requests; try again later", {
      ...cause,
      action: "RETRY_LATER",
      details: seconds === undefined ? [] : [{ field: "retryAfterSeconds", message: String(seconds) }],
    });
  }
  if (status === 400 || status === 422) {
    return new AppError(
      "precondition",
      "AI_REQUEST_REJECTED",
      `The AI service rejected the request (HTTP ${status}): ${upstreamMessage(error)}`,
      cause,
    );
  }
  if (status >= 500) {
    return new AppError("unavailable", "AI_UNAVAILABLE", `The AI service failed (HTTP ${status}); try again later`, cause);
  }
  return new AppError("unavailable", "AI_REQUEST_FAILED", `The AI service answered HTTP ${status}: ${upstreamMessage(error)}`, cause);
}

/**
 * Runs one SDK call and maps its failure with fromOpenAiError, except a cancellation by `signal`, which
 * rejects with the signal's reason (an AbortError unless the caller gave another) like any aborted work.
 */
export async function callOpenAi<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  signal?.throwIfAborted();
  try {
    return await call();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw fromOpenAiError(error);
  }
}
