import createClient, { type Client, type Middleware } from "openapi-fetch";
import { StudyApiError } from "./errors.js";
import { eventsOf, type ServerEvent } from "./events.js";
import type { paths } from "./generated/api.js";
import { uploadForm, type UploadOptions } from "./upload.js";

export interface StudyClientOptions {
  /** Where the API answers: `https://api.example.com`, or `""` in a page served by the gateway itself. */
  baseUrl: string;
  /**
   * Bearer sessions (desktop, mobile, scripts): the session token of sign-in or sign-up, or a function that returns
   * the current one. Without it, requests carry the browser's session cookie (same origin, or a trusted origin).
   */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** Another fetch (tests, instrumentation). */
  fetch?: typeof globalThis.fetch;
}

/** The answer of a successful call: the `data` of the `{ success: true, data, message }` envelope, or the body. */
type DataOf<T> = T extends { success: true; data: infer D } ? D : T;

/**
 * A typed client of every operation of the API (`client.api.GET("/api/courses", …)` with paths, parameters and
 * bodies checked against the OpenAPI document), plus what fetch alone does not give: server-sent events as async
 * iterables and multipart uploads with progress.
 */
export interface StudyClient {
  /** openapi-fetch's client over the generated `paths`: `{ data, error, response }` per call. */
  readonly api: Client<paths>;
  /** Server-sent events of a GET (e.g. `/api/jobs/{id}/events`) until the stream ends or `signal` aborts. */
  events(path: string, options?: { signal?: AbortSignal }): AsyncGenerator<ServerEvent, void, undefined>;
  /** Server-sent events of a POST with a JSON body (e.g. a chat question with `Accept: text/event-stream`). */
  postEvents(path: string, body: unknown, options?: { signal?: AbortSignal }): AsyncGenerator<ServerEvent, void, undefined>;
  /** A multipart upload (`FormData`) with progress, answered by the API's JSON envelope. */
  upload<T = unknown>(path: string, form: FormData, options?: UploadOptions): Promise<T>;
}

async function tokenOf(option: StudyClientOptions["token"]): Promise<string | undefined> {
  return typeof option === "function" ? await option() : option;
}

export function createStudyClient(options: StudyClientOptions): StudyClient {
  const fetchImplementation = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const authorization: Middleware = {
    async onRequest({ request }) {
      const token = await tokenOf(options.token);
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  };
  const api = createClient<paths>({ baseUrl, credentials: "include", fetch: fetchImplementation });
  api.use(authorization);

  async function headers(extra: Record<string, string>): Promise<Record<string, string>> {
    const token = await tokenOf(options.token);
    return token ? { ...extra, Authorization: `Bearer ${token}` } : extra;
  }

  async function send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetchImplementation(`${baseUrl}${path}`, { credentials: "include", ...init });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw StudyApiError.network(error);
    }
  }

  return {
    api,
    async *events(path, { signal } = {}) {
      const response = await send(path, { headers: await headers({ Accept: "text/event-stream" }), signal });
      yield* eventsOf(response, signal);
    },
    async *postEvents(path, body, { signal } = {}) {
      const response = await send(path, {
        method: "POST",
        headers: await headers({ Accept: "text/event-stream", "Content-Type": "application/json" }),
        body: JSON.stringify(body),
        signal,
      });
      yield* eventsOf(response, signal);
    },
    async upload(path, form, uploadOptions = {}) {
      return uploadForm(`${baseUrl}${path}`, form, { ...uploadOptions, headers: await headers({}), fetch: fetchImplementation });
    },
  };
}

/**
 * The data of an openapi-fetch answer, or the API's refusal thrown as StudyApiError:
 * `const { courses } = await data(client.api.GET("/api/courses"))`.
 */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<DataOf<T>> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch (error) {
    if (error instanceof StudyApiError || (error instanceof DOMException && error.name === "AbortError")) throw error;
    throw StudyApiError.network(error);
  }
  if (!answer.response.ok) throw StudyApiError.fromBody(answer.response.status, answer.error);
  const body = answer.data as T;
  if (typeof body === "object" && body !== null && (body as { success?: unknown }).success === true && "data" in body) {
    return (body as { data: DataOf<T> }).data;
  }
  return body as DataOf<T>;
}
