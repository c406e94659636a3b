import { calendar, type calendar_v3, type MethodOptions } from "@googleapis/calendar";
import {
  GoogleCalendarError,
  type GoogleCalendarFailure,
  type GoogleCalendarPort,
  type GoogleEvent,
  type GoogleEventPage,
  type GoogleEventsQuery,
  type GoogleEventWrite,
} from "../../application/ports/google-calendar.port";
import { fromGoogleEvent, toGoogleResource } from "./google-event-mapping";

export interface GoogleCalendarClientOptions {
  /** Where the Calendar API lives (default Google's); a local stand-in in tests. */
  rootUrl?: string;
  /** Per HTTP request (default 10 s). */
  timeoutMs?: number;
  /** Page size of the events list (default 250, Google's own default; Google caps it at 2500). */
  maxResults?: number;
}

export const GOOGLE_API_ROOT_URL = "https://www.googleapis.com/";
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESULTS = 250;
const RATE_LIMIT_REASONS: ReadonlySet<string> = new Set(["rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "dailyLimitExceeded"]);

type Operation = "list" | "insert" | "patch" | "delete";

/** What a failed call tells: Google's status and reasons when it answered. */
interface Refusal {
  status?: number;
  reasons: string[];
  message?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** Reads a gaxios error (`error.response.status`, `error.response.data.error.{message, errors[].reason}`). */
function refusalOf(error: unknown): Refusal {
  if (!isObject(error) || !isObject(error.response)) return { reasons: [] };
  const { status } = error.response;
  let data = error.response.data;
  if (typeof data === "string") {
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      // Not Google's JSON (a proxy's page, say): the status alone decides.
      data = undefined;
    }
  }
  const body = isObject(data) && isObject(data.error) ? data.error : undefined;
  const reasons = Array.isArray(body?.errors)
    ? body.errors.flatMap((detail) => (isObject(detail) && typeof detail.reason === "string" ? [detail.reason] : []))
    : [];
  return { status: typeof status === "number" ? status : undefined, reasons, message: typeof body?.message === "string" ? body.message : undefined };
}

/** The port's failure kind of a refusal (the mapping of the port's doc comment). */
export function failureOf(operation: Operation, refusal: Refusal): GoogleCalendarFailure {
  switch (refusal.status) {
    case 401:
      return "auth";
    case 403:
      return refusal.reasons.some((reason) => RATE_LIMIT_REASONS.has(reason)) ? "rate_limit" : "permission";
    case 429:
      return "rate_limit";
    case 404:
      return operation === "patch" || operation === "delete" ? "gone" : "other";
    case 410:
      return operation === "list" ? "sync_token_expired" : "gone";
    case 409:
      return operation === "insert" ? "duplicate" : "other";
    default:
      return "other";
  }
}

/**
 * The user's Google Calendar through the official client (`@googleapis/calendar`, Calendar API v3), one user's
 * access token per call. Every failure becomes a GoogleCalendarError.
 *
 * Retries are bounded so that a sync never hangs on Google: a 5xx answer to a list, patch or delete (calls that may
 * be repeated safely) is retried twice, after 250 ms then 500 ms; an insert, a rate limit (429/403: retrying
 * makes it worse, the caller decides) and a request without an answer (timeout, network) are not retried. The push
 * is retried later by its consumer and the sync by the user. At worst a call lasts three slow 5xx answers and
 * 0.75 s of waiting, each answer bounded by `timeoutMs`.
 */
export class GoogleCalendarClient implements GoogleCalendarPort {
  private readonly api: calendar_v3.Calendar;
  private readonly timeoutMs: number;
  private readonly maxResults: number;

  constructor(options: GoogleCalendarClientOptions = {}) {
    this.api = calendar({ version: "v3", rootUrl: options.rootUrl ?? GOOGLE_API_ROOT_URL });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResults = options.maxResults ?? DEFAULT_MAX_RESULTS;
  }

  async listEvents(accessToken: string, calendarId: string, query: GoogleEventsQuery): Promise<GoogleEventPage> {
    const params: calendar_v3.Params$Resource$Events$List = { calendarId, singleEvents: true, maxResults: this.maxResults };
    if (query.pageToken !== undefined) params.pageToken = query.pageToken;
    if (query.kind === "full") {
      params.timeMin = query.timeMin.toISOString();
      params.timeMax = query.timeMax.toISOString();
    } else {
      // Google refuses timeMin/timeMax/orderBy next to a sync token, and always reports deletions then.
      params.syncToken = query.syncToken;
      params.showDeleted = true;
    }
    const { data } = await this.call("list", () => this.api.events.list(params, this.options(accessToken)));
    const events = (data.items ?? []).map(fromGoogleEvent).filter((event): event is GoogleEvent => event !== null);
    const page: GoogleEventPage = { events };
    if (data.nextPageToken) page.nextPageToken = data.nextPageToken;
    else if (data.nextSyncToken) page.nextSyncToken = data.nextSyncToken;
    return page;
  }

  async insertEvent(accessToken: string, calendarId: string, event: GoogleEventWrite): Promise<{ id: string }> {
    const { data } = await this.call("insert", () =>
      this.api.events.insert({ calendarId, requestBody: toGoogleResource(event, "insert") }, this.options(accessToken, false)),
    );
    return { id: data.id ?? event.id };
  }

  async patchEvent(accessToken: string, calendarId: string, eventId: string, event: GoogleEventWrite): Promise<void> {
    await this.call("patch", () =>
      this.api.events.patch({ calendarId, eventId, requestBody: toGoogleResource(event, "patch") }, this.options(accessToken)),
    );
  }

  async deleteEvent(accessToken: string, calendarId: string, eventId: string): Promise<void> {
    await this.call("delete", () => this.api.events.delete({ calendarId, eventId }, this.options(accessToken)));
  }

  /** A fresh options object per call: gaxios keeps its retry count in the retry config it is given. */
  private options(accessToken: string, retry = true): MethodOptions {
    return {
      headers: { Authorization: `Bearer ${accessToken}` },
      // Node's own fetch: gaxios would otherwise load node-fetch with a dynamic import(), which jest cannot run.
      fetchImplementation: fetch,
      timeout: this.timeoutMs,
      retryConfig: retry
        ? {
            retry: 2,
            retryDelay: 250,
            maxRetryDelay: 1000,
            noResponseRetries: 0,
            statusCodesToRetry: [[500, 599]],
            httpMethodsToRetry: ["GET", "PATCH", "DELETE"],
          }
        : { retry: 0, noResponseRetries: 0 },
    };
  }

  private async call<T>(operation: Operation, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const refusal = refusalOf(error);
      const failure = failureOf(operation, refusal);
      const reason = refusal.message ?? (error instanceof Error ? error.message : String(error));
      const status =
        refusal.status === undefined ? "no answer" : `${refusal.status}${refusal.reasons.length > 0 ? ` ${refusal.reasons.join(",")}` : ""}`;
      throw new GoogleCalendarError(failure, `Google Calendar events.${operation} failed (${status}): ${reason}`, refusal.status, { cause: error });
    }
  }
}
