import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { badRequest, errorBody, MeilisearchStandInError, unknownField, type MeilisearchErrorBody } from "./errors";
import { matchesFilter, parseFilterParameter } from "./filter";
import { checkFilterable, parseSearchRequest, runSearch } from "./search";
import { defaultSettings, parseSettings, settingsView, type StandInIndex } from "./state";

/**
 * A Meilisearch server for tests, on loopback, in memory, speaking the HTTP API that the official `meilisearch`
 * client uses for indexes, settings, documents, search and tasks:
 * - GET /health (no key), GET /version;
 * - POST /indexes, GET|DELETE /indexes/:uid, GET|PATCH /indexes/:uid/settings;
 * - POST (add or replace) and PUT (add or update) /indexes/:uid/documents, POST /indexes/:uid/documents/delete-batch,
 *   POST /indexes/:uid/documents/delete (by filter);
 * - POST /indexes/:uid/search: matching, typo tolerance, ranking and `_rankingScore`, `_formatted` (highlight and
 *   crop), filter, facets, rankingScoreThreshold, offset/limit or page/hitsPerPage (see engine.ts for the rules);
 * - GET /tasks/:uid.
 *
 * Strict as Meilisearch is: every route but /health needs `Authorization: Bearer <apiKey>` (401
 * missing_authorization_header, 403 invalid_api_key); request bodies are validated (unknown fields → bad_request,
 * wrong types → the field's invalid_* code, bad filters → invalid_search_filter / invalid_document_filter) and
 * errors answer Meilisearch's `{message, code, type, link}`. Writes answer 202 with an enqueued task summary and are
 * applied in order, asynchronously (after `taskDelayMs`): a client that does not wait for the task does not see its
 * write yet. Search parameters and settings Meilisearch knows but the stand-in does not evaluate are refused with a
 * message saying so, so that no test passes on a silently ignored parameter.
 */

export interface MeilisearchStandInOptions {
  /** The master key every request must present; a random one when absent. */
  apiKey?: string;
  /** How long a task stays enqueued before it is processed (default 0: on the next turn of the event loop). */
  taskDelayMs?: number;
}

export interface MeilisearchRequestRecord {
  method: string;
  path: string;
  /** The query string, without `?`. */
  query: string;
  authorization?: string;
  /** The parsed JSON body, when there was one. */
  body?: unknown;
  status: number;
  /** The error code when the answer was an error. */
  errorCode?: string;
}

export interface MeilisearchStandIn {
  url: string;
  apiKey: string;
  /** Every request answered, in order. */
  requests: MeilisearchRequestRecord[];
  /** The documents of an index as stored (empty when the index does not exist). */
  documents(indexUid: string): Record<string, unknown>[];
  close(): Promise<void>;
}

type TaskStatus = "enqueued" | "processing" | "succeeded" | "failed" | "canceled";
type TaskType = "indexCreation" | "indexDeletion" | "settingsUpdate" | "documentAdditionOrUpdate" | "documentDeletion";

interface Task {
  uid: number;
  batchUid: number | null;
  indexUid: string;
  status: TaskStatus;
  type: TaskType;
  canceledBy: null;
  details: Record<string, unknown>;
  error: MeilisearchErrorBody | null;
  duration: string | null;
  enqueuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Applies the task; returns the details to merge, or throws a MeilisearchStandInError that fails it. */
  apply: () => Record<string, unknown> | undefined;
}

const INDEX_UID = /^[A-Za-z0-9_-]{1,400}$/;
const DOCUMENT_ID = /^[A-Za-z0-9_-]+$/;
const DOCUMENT_QUERY_PARAMETERS = ["primaryKey", "csvDelimiter", "customMetadata", "skipCreation"];
const TASK_QUERY_PARAMETERS = ["customMetadata"];

const notFoundIndex = (uid: string) => new MeilisearchStandInError(404, "index_not_found", `Index \`${uid}\` not found.`);

function checkIndexUid(uid: string): void {
  if (!INDEX_UID.test(uid)) {
    throw badRequest(
      "invalid_index_uid",
      `\`${uid}\` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 400 bytes.`,
    );
  }
}

function checkQueryParameters(query: URLSearchParams, accepted: string[]): void {
  for (const name of query.keys()) {
    if (!accepted.includes(name)) {
      throw badRequest("bad_request", `Unknown parameter \`${name}\`: expected one of ${accepted.map((item) => `\`${item}\``).join(", ")}`);
    }
  }
}

function documentIdOf(document: Record<string, unknown>, primaryKey: string): string {
  const id = document[primaryKey];
  if (id === undefined) {
    throw badRequest("missing_document_id", `Document doesn't have a \`${primaryKey}\` attribute: \`${JSON.stringify(document)}\`.`);
  }
  const text = typeof id === "number" && Number.isInteger(id) ? String(id) : typeof id === "string" ? id : undefined;
  if (text === undefined || !DOCUMENT_ID.test(text) || Buffer.byteLength(text) > 511) {
    throw badRequest(
      "invalid_document_id",
      `Document identifier \`${JSON.stringify(id)}\` is invalid. A document identifier can be of type integer or string, only composed of alphanumeric characters (a-z A-Z 0-9), hyphens (-) and underscores (_), and can not be more than 511 bytes.`,
    );
  }
  return text;
}

/** The field a primary key is inferred from when none was given: the only one whose name ends with `id`. */
function inferPrimaryKey(document: Record<string, unknown> | undefined): string {
  const candidates = Object.keys(document ?? {}).filter((name) => name.toLowerCase().endsWith("id"));
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    throw badRequest(
      "index_primary_key_no_candidate_found",
      "The primary key inference failed as the engine did not find any field ending with `id` in its name. Please specify the primary key manually using the `primaryKey` query parameter.",
    );
  }
  throw badRequest(
    "index_primary_key_multiple_candidates_found",
    `The primary key inference failed as the engine found ${candidates.length} fields ending with \`id\` in their names: '${candidates.join("' and '")}'. Please specify the primary key manually using the \`primaryKey\` query parameter.`,
  );
}

export async function startMeilisearchStandIn(options: MeilisearchStandInOptions = {}): Promise<MeilisearchStandIn> {
  const apiKey = options.apiKey ?? randomBytes(16).toString("hex");
  const taskDelayMs = options.taskDelayMs ?? 0;
  const indexes = new Map<string, StandInIndex>();
  const tasks: Task[] = [];
  const requests: MeilisearchRequestRecord[] = [];
  let processing = false;
  let nextBatchUid = 0;

  const now = () => new Date().toISOString();

  function createIndex(uid: string, primaryKey: string | null): StandInIndex {
    const created = now();
    const index: StandInIndex = { uid, primaryKey, createdAt: created, updatedAt: created, settings: defaultSettings(), documents: new Map() };
    indexes.set(uid, index);
    return index;
  }

  function existingIndex(uid: string): StandInIndex {
    const index = indexes.get(uid);
    if (!index) throw notFoundIndex(uid);
    return index;
  }

  function processQueue(): void {
    if (processing) return;
    const task = tasks.find((candidate) => candidate.status === "enqueued");
    if (!task) return;
    processing = true;
    setTimeout(() => {
      task.status = "processing";
      task.startedAt = now();
      task.batchUid = nextBatchUid++;
      const started = performance.now();
      try {
        Object.assign(task.details, task.apply() ?? {});
        task.status = "succeeded";
      } catch (error) {
        const failure = error instanceof MeilisearchStandInError ? error : new MeilisearchStandInError(500, "internal", String(error), "internal");
        task.status = "failed";
        task.error = failure.body();
      }
      task.finishedAt = now();
      task.duration = `PT${((performance.now() - started) / 1000).toFixed(6)}S`;
      processing = false;
      processQueue();
    }, taskDelayMs);
  }

  function enqueue(indexUid: string, type: TaskType, details: Record<string, unknown>, apply: Task["apply"]): Record<string, unknown> {
    const task: Task = {
      uid: tasks.length,
      batchUid: null,
      indexUid,
      status: "enqueued",
      type,
      canceledBy: null,
      details,
      error: null,
      duration: null,
      enqueuedAt: now(),
      startedAt: null,
      finishedAt: null,
      apply,
    };
    tasks.push(task);
    processQueue();
    return { taskUid: task.uid, indexUid, status: "enqueued", type, enqueuedAt: task.enqueuedAt };
  }

  function taskView(task: Task): Record<string, unknown> {
    return {
      uid: task.uid,
      batchUid: task.batchUid,
      indexUid: task.indexUid,
      status: task.status,
      type: task.type,
      canceledBy: task.canceledBy,
      details: task.details,
      error: task.error,
      duration: task.duration,
      enqueuedAt: task.enqueuedAt,
      startedAt: task.startedAt,
      finishedAt: task.finishedAt,
    };
  }

  function documentsOf(body: unknown): Record<string, unknown>[] {
    const list: unknown[] = Array.isArray(body) ? body : [body];
    return list.map((document) => {
      if (typeof document !== "object" || document === null || Array.isArray(document)) {
        throw badRequest(
          "malformed_payload",
          `The \`json\` payload provided is malformed. \`Couldn't serialize document value: data are neither an object nor a list of objects\`.`,
        );
      }
      return document as Record<string, unknown>;
    });
  }

  function addDocuments(uid: string, query: URLSearchParams, body: unknown, merge: boolean): Record<string, unknown> {
    checkIndexUid(uid);
    checkQueryParameters(query, DOCUMENT_QUERY_PARAMETERS);
    const documents = documentsOf(body);
    const requestedKey = query.get("primaryKey");
    return enqueue(uid, "documentAdditionOrUpdate", { receivedDocuments: documents.length, indexedDocuments: null }, () => {
      const index = indexes.get(uid) ?? createIndex(uid, null);
      if (requestedKey !== null && index.primaryKey !== null && index.primaryKey !== requestedKey) {
        throw badRequest("index_primary_key_already_exists", `Index \`${uid}\`: Index already has a primary key: \`${index.primaryKey}\`.`);
      }
      const primaryKey = index.primaryKey ?? requestedKey ?? inferPrimaryKey(documents[0]);
      // The whole batch is checked before anything is stored: a failed task changes nothing.
      const identified = documents.map((document) => ({ id: documentIdOf(document, primaryKey), document }));
      index.primaryKey = primaryKey;
      for (const { id, document } of identified) {
        const previous = index.documents.get(id);
        index.documents.set(id, merge && previous ? { ...previous, ...document } : { ...document });
      }
      index.updatedAt = now();
      return { indexedDocuments: identified.length };
    });
  }

  function route(method: string, segments: string[], query: URLSearchParams, body: unknown, hasBody: boolean): { status: number; answer?: unknown } {
    const [root, uid, sub, action] = segments;
    const requireBody = () => {
      if (!hasBody) throw badRequest("missing_payload", "A json payload is missing.");
    };
    if (root === "version" && segments.length === 1 && method === "GET") {
      return { status: 200, answer: { commitSha: "stand-in", commitDate: "2026-01-01T00:00:00Z", pkgVersion: "1.22.0" } };
    }
    if (root === "tasks" && segments.length === 2 && method === "GET") {
      const taskUid = Number(uid);
      if (!/^\d+$/.test(uid))
        throw badRequest("invalid_task_uids", `Invalid value in parameter \`taskUid\`: could not parse \`${uid}\` as a positive integer`);
      const task = tasks[taskUid] as Task | undefined;
      if (!task) throw new MeilisearchStandInError(404, "task_not_found", `Task \`${taskUid}\` not found.`);
      return { status: 200, answer: taskView(task) };
    }
    if (root !== "indexes") return { status: 404 };
    if (segments.length === 1 && method === "POST") {
      checkQueryParameters(query, TASK_QUERY_PARAMETERS);
      requireBody();
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw badRequest("bad_request", `Invalid value type: expected an object, but found ${JSON.stringify(body)}`);
      const fields = body as Record<string, unknown>;
      for (const key of Object.keys(fields)) if (!["uid", "primaryKey"].includes(key)) throw unknownField(key, ["uid", "primaryKey"]);
      if (fields.uid === undefined) throw badRequest("missing_index_uid", "Missing field `uid`");
      if (typeof fields.uid !== "string")
        throw badRequest("invalid_index_uid", `Invalid value type at \`.uid\`: expected a string, but found ${JSON.stringify(fields.uid)}`);
      const newUid = fields.uid;
      checkIndexUid(newUid);
      const primaryKey = fields.primaryKey ?? null;
      if (primaryKey !== null && typeof primaryKey !== "string") {
        throw badRequest(
          "invalid_index_primary_key",
          `Invalid value type at \`.primaryKey\`: expected a string, but found ${JSON.stringify(primaryKey)}`,
        );
      }
      return {
        status: 202,
        answer: enqueue(newUid, "indexCreation", { primaryKey }, () => {
          if (indexes.has(newUid)) throw new MeilisearchStandInError(409, "index_already_exists", `Index \`${newUid}\` already exists.`);
          createIndex(newUid, primaryKey);
          return undefined;
        }),
      };
    }
    if (uid === undefined) return { status: 405 };
    checkIndexUid(uid);
    if (segments.length === 2) {
      if (method === "GET") {
        const index = existingIndex(uid);
        return { status: 200, answer: { uid: index.uid, primaryKey: index.primaryKey, createdAt: index.createdAt, updatedAt: index.updatedAt } };
      }
      if (method === "DELETE") {
        return {
          status: 202,
          answer: enqueue(uid, "indexDeletion", { deletedDocuments: null }, () => {
            const index = existingIndex(uid);
            indexes.delete(uid);
            return { deletedDocuments: index.documents.size };
          }),
        };
      }
      return { status: 405 };
    }
    if (sub === "settings" && segments.length === 3) {
      if (method === "GET") return { status: 200, answer: settingsView(existingIndex(uid).settings) };
      if (method === "PATCH") {
        requireBody();
        const change = parseSettings(body);
        return {
          status: 202,
          answer: enqueue(uid, "settingsUpdate", { ...(body as Record<string, unknown>) }, () => {
            const index = indexes.get(uid) ?? createIndex(uid, null);
            change(index.settings);
            index.updatedAt = now();
            return undefined;
          }),
        };
      }
      return { status: 405 };
    }
    if (sub === "documents" && segments.length === 3) {
      if (method === "POST" || method === "PUT") {
        requireBody();
        return { status: 202, answer: addDocuments(uid, query, body, method === "PUT") };
      }
      return { status: 405 };
    }
    if (sub === "documents" && segments.length === 4 && action === "delete-batch" && method === "POST") {
      checkQueryParameters(query, TASK_QUERY_PARAMETERS);
      requireBody();
      if (!Array.isArray(body)) throw badRequest("bad_request", `Invalid value type: expected an array, but found ${JSON.stringify(body)}`);
      const ids = body.map((id: unknown) => {
        if (typeof id === "string" || (typeof id === "number" && Number.isInteger(id))) return String(id);
        throw badRequest("bad_request", `Invalid value type: expected a string or an integer, but found ${JSON.stringify(id)}`);
      });
      return {
        status: 202,
        answer: enqueue(uid, "documentDeletion", { providedIds: ids.length, deletedDocuments: null, originalFilter: null }, () => {
          const index = existingIndex(uid);
          const deleted = ids.filter((id) => index.documents.delete(id)).length;
          return { deletedDocuments: deleted };
        }),
      };
    }
    if (sub === "documents" && segments.length === 4 && action === "delete" && method === "POST") {
      checkQueryParameters(query, TASK_QUERY_PARAMETERS);
      requireBody();
      if (typeof body !== "object" || body === null || Array.isArray(body))
        throw badRequest("bad_request", `Invalid value type: expected an object, but found ${JSON.stringify(body)}`);
      const fields = body as Record<string, unknown>;
      for (const key of Object.keys(fields)) if (key !== "filter") throw unknownField(key, ["filter"]);
      if (fields.filter === undefined) throw badRequest("missing_document_filter", "Missing field `filter`");
      const filter = parseFilterParameter(fields.filter, "invalid_document_filter");
      if (!filter) throw badRequest("invalid_document_filter", "Sending an empty filter is forbidden.");
      const expression = typeof fields.filter === "string" ? fields.filter : JSON.stringify(fields.filter);
      return {
        status: 202,
        answer: enqueue(uid, "documentDeletion", { providedIds: 0, deletedDocuments: null, originalFilter: JSON.stringify(fields.filter) }, () => {
          const index = existingIndex(uid);
          checkFilterable(index, filter, expression, "invalid_document_filter");
          let deleted = 0;
          for (const [id, document] of index.documents) {
            if (matchesFilter(filter, document)) {
              index.documents.delete(id);
              deleted++;
            }
          }
          return { deletedDocuments: deleted };
        }),
      };
    }
    if (sub === "search" && segments.length === 3 && method === "POST") {
      const request = parseSearchRequest(hasBody ? body : {});
      return { status: 200, answer: runSearch(existingIndex(uid), request) };
    }
    return { status: 404 };
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    const method = request.method ?? "GET";
    const segments = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const record: MeilisearchRequestRecord = { method, path: url.pathname, query: url.search.replace(/^\?/, ""), status: 0 };
    if (request.headers.authorization) record.authorization = request.headers.authorization;
    let status: number;
    let answer: unknown;
    try {
      if (raw !== "") {
        try {
          record.body = JSON.parse(raw);
        } catch (error) {
          throw badRequest(
            "malformed_payload",
            `The json payload provided is malformed. \`${error instanceof Error ? error.message : String(error)}\`.`,
          );
        }
      }
      if (segments.length === 1 && segments[0] === "health" && method === "GET") {
        ({ status, answer } = { status: 200, answer: { status: "available" } });
      } else {
        const authorization = request.headers.authorization;
        if (!authorization) {
          throw new MeilisearchStandInError(
            401,
            "missing_authorization_header",
            "The Authorization header is missing. It must use the bearer authorization method.",
            "auth",
          );
        }
        if (authorization !== `Bearer ${apiKey}`)
          throw new MeilisearchStandInError(403, "invalid_api_key", "The provided API key is invalid.", "auth");
        if (raw !== "" && !/^application\/json\b/.test(request.headers["content-type"] ?? "")) {
          throw new MeilisearchStandInError(
            415,
            "invalid_content_type",
            `The Content-Type \`${request.headers["content-type"] ?? ""}\` is invalid. Accepted values for the Content-Type header are: \`application/json\` (the stand-in reads JSON only)`,
          );
        }
        ({ status, answer } = route(method, segments, url.searchParams, record.body, raw !== ""));
      }
    } catch (error) {
      const failure = error instanceof MeilisearchStandInError ? error : new MeilisearchStandInError(500, "internal", String(error), "internal");
      status = failure.status;
      answer = failure.body();
      record.errorCode = failure.code;
    }
    record.status = status;
    requests.push(record);
    if (answer === undefined) {
      response.writeHead(status).end();
    } else {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
    }
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify(errorBody("internal", String(error), "internal")));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    documents: (indexUid) => [...(indexes.get(indexUid)?.documents.values() ?? [])].map((document) => ({ ...document })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
