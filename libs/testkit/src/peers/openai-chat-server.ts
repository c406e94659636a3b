import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";
import {
  failureBody,
  invalidUrl,
  modelNotFound,
  modelParameter,
  openAiError,
  parseJsonObject,
  readBody,
  refuseKey,
  sendJson,
  startLoopbackServer,
  typeName,
  type OpenAiReply,
} from "./openai-http";

/**
 * A local OpenAI chat-completions endpoint on loopback: `POST /v1/chat/completions` as OpenAI speaks it, for the
 * official SDK (`baseURL: server.baseURL`) and any OpenAI-compatible client. The answer is scripted by the test.
 *
 * - Authentication: `Authorization: Bearer <key>` with a key of `apiKeys` (default: any non-empty key); none or a
 *   wrong one is 401 with OpenAI's body.
 * - The body is checked: JSON; `model` a string naming a known model (else 404 `model_not_found`); `messages` a
 *   non-empty array of `{role: system | developer | user | assistant, content: string, name?: string}` (content
 *   parts, tool calls and tool messages are refused: the chat adapter sends none, so one would be a bug);
 *   `stream` a boolean; `stream_options` only with `stream: true`; `temperature` 0-2; `max_tokens` /
 *   `max_completion_tokens` positive integers. Bad requests are 400 with OpenAI's error body
 *   `{error: {message, type, param, code}}`.
 * - `stream: true`: `text/event-stream` of `data: {chat.completion.chunk}` events: first the role
 *   (`delta: {role: "assistant", content: ""}`), then the answer in small deltas (a word with its leading space
 *   each, or the responder's own chunks), then `delta: {}` with the finish reason, with
 *   `stream_options: {include_usage: true}` a last chunk with `choices: []` and the usage (every other chunk then
 *   carries `usage: null`), and `data: [DONE]`.
 * - Otherwise a `chat.completion` object with the whole answer and the usage.
 *
 * Token counts are estimated (4 characters a prompt token, one completion token a delta).
 */

const DEFAULT_MODELS = ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1", "gpt-4.1-nano", "gpt-5-mini", "gpt-5"];
const ROLES = ["system", "developer", "user", "assistant"] as const;

export type OpenAiChatRole = (typeof ROLES)[number];

export interface OpenAiChatMessage {
  role: OpenAiChatRole;
  content: string;
  name?: string;
}

/** One request to /v1/chat/completions, as the responder sees it and as recorded. */
export interface OpenAiChatRequest {
  /** As sent; absent when the request failed before reading it. */
  model?: string;
  /** Empty when the request was refused before they were checked. */
  messages: OpenAiChatMessage[];
  stream: boolean;
  /** `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The JSON body as sent (empty when it was not a JSON object). */
  body: Record<string, unknown>;
  /** The HTTP status answered. */
  status: number;
  /**
   * pending while it is answered; refused (an error status), answered (complete), cut (by `cutNext`) or
   * client-closed (the client went away before the end).
   */
  outcome: "pending" | "refused" | "answered" | "cut" | "client-closed";
  /** The answer's text as sent so far (the joined deltas when streaming). */
  sent: string;
}

export type OpenAiChatFinishReason = "stop" | "length" | "content_filter";

/**
 * What the responder answers: a text (streamed a word a delta), the exact deltas, or an error status with its body
 * (default: OpenAI's body for that status).
 */
export type OpenAiChatReply = string | { chunks: string[]; finishReason?: OpenAiChatFinishReason } | { error: { status: number; body?: unknown } };

export type OpenAiChatResponder = (request: OpenAiChatRequest) => OpenAiChatReply | Promise<OpenAiChatReply>;

/**
 * How a stream is cut: reset (the connection is destroyed mid-body: the SDK's iterator throws), error (OpenAI's
 * in-stream `data: {"error": …}` event, then the end: the SDK throws an APIError), end (the body ends without a
 * finish reason or `[DONE]`: the SDK's iterator just stops, the client must notice).
 */
export type OpenAiChatCut = "reset" | "error" | "end";

export interface OpenAiChatServerOptions {
  /** Keys accepted as `Authorization: Bearer <key>`; default any non-empty key. */
  apiKeys?: string[];
  /** Extra model names beside gpt-4o(-mini), gpt-4.1(-mini, -nano) and gpt-5(-mini). */
  models?: string[];
  /** The script; default `defaultChatResponder`. */
  respond?: OpenAiChatResponder;
  /** Pause before each streamed delta (default 0), so clients can act mid-stream. */
  chunkDelayMs?: number;
}

export interface OpenAiChatServer {
  /** e.g. `http://127.0.0.1:40123/v1`: the SDK's baseURL. */
  baseURL: string;
  /** A key the server accepts. */
  apiKey: string;
  /** Every request to /v1/chat/completions, in order (updated while it streams). */
  requests: OpenAiChatRequest[];
  /** Pause before each streamed delta; may be changed between requests. */
  chunkDelayMs: number;
  /** Replaces the script (none: back to `defaultChatResponder`). */
  respondWith(respond?: OpenAiChatResponder): void;
  /** The next streamed answer is cut after `afterChunks` content deltas (default 1), the way `how` says. */
  cutNext(afterChunks?: number, how?: OpenAiChatCut): void;
  /** Resolves when every request received so far has been answered, cut or abandoned by its client. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** The answer's deltas: each word with the white space before it, so they join back to the text exactly. */
export function chatDeltas(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/**
 * The default script, standing in for a grounded model: it cites the first passage marker `[n]` it finds (one
 * opening a line first, as passages are listed, else anywhere) with up to 12 words that follow it; without one it
 * says the material does not contain the answer.
 */
export function defaultChatResponder(request: OpenAiChatRequest): string {
  const texts = request.messages.map((message) => message.content);
  const marked =
    texts.map((text) => /^[ \t]*\[(\d+)\][ \t]*(.*)$/m.exec(text)).find((match) => match !== null) ??
    texts.map((text) => /\[(\d+)\][ \t]*(.*)$/m.exec(text)).find((match) => match !== null);
  if (!marked) return "The material does not contain the answer.";
  const words = marked[2]
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 12)
    .join(" ")
    .replace(/[.,;:!?]+$/, "");
  return words ? `According to your material, ${words} [${marked[1]}].` : `See your material [${marked[1]}].`;
}

const estimatedTokens = (text: string) => Math.ceil(text.length / 4);

const invalid = (message: string, param: string | null, code: string | null): OpenAiReply => ({
  status: 400,
  body: openAiError(message, "invalid_request_error", param, code),
});

/** The messages, or OpenAI's 400 for the first thing wrong with them. */
function messagesOf(value: unknown): OpenAiChatMessage[] | OpenAiReply {
  if (value === undefined) return invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
  if (!Array.isArray(value)) {
    return invalid(`Invalid type for 'messages': expected an array, but got ${typeName(value)} instead.`, "messages", "invalid_type");
  }
  if (value.length === 0) {
    return invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "messages",
      "empty_array",
    );
  }
  const messages: OpenAiChatMessage[] = [];
  for (const [index, item] of value.entries()) {
    const at = `messages[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return invalid(`Invalid type for '${at}': expected an object, but got ${typeName(item)} instead.`, at, "invalid_type");
    }
    const fields = item as Record<string, unknown>;
    if (fields.role === undefined) return invalid(`Missing required parameter: '${at}.role'.`, `${at}.role`, "missing_required_parameter");
    const role = ROLES.find((known) => known === fields.role);
    if (!role) {
      return invalid(
        `Invalid value: '${typeof fields.role === "string" ? fields.role : JSON.stringify(fields.role)}'. Supported values are: 'system', 'developer', 'user' and 'assistant' (this stand-in serves no tool or function messages).`,
        `${at}.role`,
        "invalid_value",
      );
    }
    if (fields.content === undefined || fields.content === null) {
      return invalid(`Missing required parameter: '${at}.content'.`, `${at}.content`, "missing_required_parameter");
    }
    if (typeof fields.content !== "string") {
      return invalid(
        `Invalid type for '${at}.content': expected a string, but got ${typeName(fields.content)} instead (this stand-in takes no content parts).`,
        `${at}.content`,
        "invalid_type",
      );
    }
    if (fields.name !== undefined && typeof fields.name !== "string") {
      return invalid(`Invalid type for '${at}.name': expected a string, but got ${typeName(fields.name)} instead.`, `${at}.name`, "invalid_type");
    }
    const unknown = Object.keys(fields).find((key) => !["role", "content", "name"].includes(key));
    if (unknown) return invalid(`Unrecognized request argument supplied: ${at}.${unknown}`, `${at}.${unknown}`, "unknown_parameter");
    messages.push({ role, content: fields.content, ...(typeof fields.name === "string" ? { name: fields.name } : {}) });
  }
  return messages;
}

/** OpenAI's 400 for the first sampling or streaming parameter out of range; null when all are fine. */
function refuseParameters(fields: Record<string, unknown>): OpenAiReply | null {
  if (fields.stream !== undefined && fields.stream !== null && typeof fields.stream !== "boolean") {
    return invalid(`Invalid type for 'stream': expected a boolean, but got ${typeName(fields.stream)} instead.`, "stream", "invalid_type");
  }
  if (fields.stream_options !== undefined && fields.stream_options !== null) {
    if (fields.stream !== true) {
      return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options", null);
    }
    const options = fields.stream_options;
    if (typeof options !== "object" || Array.isArray(options)) {
      return invalid(
        `Invalid type for 'stream_options': expected an object, but got ${typeName(options)} instead.`,
        "stream_options",
        "invalid_type",
      );
    }
    const includeUsage = (options as Record<string, unknown>).include_usage;
    if (includeUsage !== undefined && typeof includeUsage !== "boolean") {
      return invalid(
        `Invalid type for 'stream_options.include_usage': expected a boolean, but got ${typeName(includeUsage)} instead.`,
        "stream_options.include_usage",
        "invalid_type",
      );
    }
  }
  const temperature = fields.temperature;
  if (temperature !== undefined && temperature !== null) {
    if (typeof temperature !== "number") {
      return invalid(`Invalid type for 'temperature': expected a decimal, but got ${typeName(temperature)} instead.`, "temperature", "invalid_type");
    }
    if (temperature < 0 || temperature > 2) {
      return invalid(
        `Invalid 'temperature': decimal ${temperature < 0 ? "below minimum" : "above maximum"} value. Expected a value ${temperature < 0 ? ">= 0" : "<= 2"}, but got ${temperature} instead.`,
        "temperature",
        temperature < 0 ? "decimal_below_min_value" : "decimal_above_max_value",
      );
    }
  }
  for (const param of ["max_tokens", "max_completion_tokens"]) {
    const value = fields[param];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      return invalid(`Invalid type for '${param}': expected an integer, but got ${typeName(value)} instead.`, param, "invalid_type");
    }
    if (value < 1) {
      return invalid(
        `Invalid '${param}': integer below minimum value. Expected a value >= 1, but got ${value} instead.`,
        param,
        "integer_below_min_value",
      );
    }
  }
  return null;
}

const usageOf = (messages: OpenAiChatMessage[], completionTokens: number) => {
  const promptTokens = messages.reduce((sum, message) => sum + 4 + estimatedTokens(message.content), 3);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
};

export async function startOpenAiChatServer(options: OpenAiChatServerOptions = {}): Promise<OpenAiChatServer> {
  const models = new Set([...DEFAULT_MODELS, ...(options.models ?? [])]);
  const requests: OpenAiChatRequest[] = [];
  const cuts: { afterChunks: number; how: OpenAiChatCut }[] = [];
  const inFlight = new Set<Promise<void>>();
  let respond: OpenAiChatResponder = options.respond ?? defaultChatResponder;
  const accepts = (key: string) => (options.apiKeys ? options.apiKeys.includes(key) : key.length > 0);

  const refuse = (response: ServerResponse, record: OpenAiChatRequest, reply: OpenAiReply) => {
    record.status = reply.status;
    record.outcome = "refused";
    sendJson(response, reply.status, reply.body);
  };

  /** Streams the answer as chat.completion.chunk events, pacing and cutting it as asked. */
  const stream = async (
    response: ServerResponse,
    record: OpenAiChatRequest,
    model: string,
    chunks: string[],
    finishReason: OpenAiChatFinishReason,
  ) => {
    const cut = cuts.shift();
    const id = `chatcmpl-${randomBytes(15).toString("hex")}`;
    const created = Math.floor(Date.now() / 1000);
    const event = (choices: unknown[], usage?: unknown) =>
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        service_tier: "default",
        system_fingerprint: "fp_stand_in",
        choices,
        ...(record.includeUsage ? { usage: usage ?? null } : {}),
      })}\n\n`;
    const delta = (fields: Record<string, unknown>, finish: OpenAiChatFinishReason | null) => [
      { index: 0, delta: fields, logprobs: null, finish_reason: finish },
    ];
    let clientClosed = false;
    response.on("close", () => {
      if (!response.writableFinished && record.outcome === "pending") {
        clientClosed = true;
        record.outcome = "client-closed";
      }
    });
    // Resolves once the last event reached the socket: a reset must not swallow the deltas written before it.
    let written = Promise.resolve();
    const send = (text: string) => {
      written = new Promise<void>((resolve) => response.write(text, () => resolve()));
    };
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
    send(event(delta({ role: "assistant", content: "", refusal: null }, null)));
    for (let index = 0; index <= chunks.length; index += 1) {
      if (cut?.afterChunks === index) {
        record.outcome = "cut";
        if (cut.how === "reset") {
          await written;
          response.destroy();
        } else if (cut.how === "error") {
          response.end(`data: ${JSON.stringify(failureBody({ status: 500 }, model))}\n\n`);
        } else {
          response.end();
        }
        return;
      }
      if (index === chunks.length) break;
      if (handle.chunkDelayMs > 0) await delay(handle.chunkDelayMs);
      if (clientClosed) return;
      send(event(delta({ content: chunks[index] }, null)));
      record.sent += chunks[index];
    }
    send(event(delta({}, finishReason)));
    if (record.includeUsage) send(event([], usageOf(record.messages, chunks.length)));
    record.outcome = "answered";
    response.end("data: [DONE]\n\n");
  };

  /** Fills the record from the request; the model when the request is to be answered, else OpenAI's refusal. */
  const admit = (request: IncomingMessage, body: Buffer, record: OpenAiChatRequest): { model: string } | OpenAiReply => {
    const refusedKey = refuseKey(request, accepts);
    if (refusedKey) return refusedKey;
    const parsed = parseJsonObject(body);
    if (!("fields" in parsed)) return parsed;
    const { fields } = parsed;
    record.body = fields;
    if (typeof fields.model === "string") record.model = fields.model;
    record.stream = fields.stream === true;
    const streamOptions = fields.stream_options;
    record.includeUsage =
      typeof streamOptions === "object" && streamOptions !== null && (streamOptions as Record<string, unknown>).include_usage === true;

    const checkedModel = modelParameter(fields.model);
    if (!("model" in checkedModel)) return checkedModel;
    const messages = messagesOf(fields.messages);
    if (!Array.isArray(messages)) return messages;
    record.messages = messages;
    const refusedParameter = refuseParameters(fields);
    if (refusedParameter) return refusedParameter;
    return models.has(checkedModel.model) ? checkedModel : modelNotFound(checkedModel.model);
  };

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "POST" || path !== "/v1/chat/completions") {
      await readBody(request);
      const reply = invalidUrl(request, path);
      sendJson(response, reply.status, reply.body);
      return;
    }
    const record: OpenAiChatRequest = {
      messages: [],
      stream: false,
      includeUsage: false,
      body: {},
      status: 200,
      outcome: "pending",
      sent: "",
    };
    requests.push(record);
    const admitted = admit(request, await readBody(request), record);
    if (!("model" in admitted)) {
      refuse(response, record, admitted);
      return;
    }
    const { model } = admitted;

    let reply: OpenAiChatReply;
    try {
      reply = await respond(record);
    } catch (error) {
      refuse(response, record, { status: 500, body: openAiError(`stand-in responder failed: ${String(error)}`, "server_error") });
      return;
    }
    if (typeof reply === "object" && "error" in reply) {
      refuse(response, record, { status: reply.error.status, body: reply.error.body ?? failureBody(reply.error, model) });
      return;
    }
    const chunks = typeof reply === "string" ? chatDeltas(reply) : reply.chunks;
    const finishReason = typeof reply === "string" ? "stop" : (reply.finishReason ?? "stop");
    if (record.stream) {
      await stream(response, record, model, chunks, finishReason);
      return;
    }
    record.sent = chunks.join("");
    record.outcome = "answered";
    sendJson(response, 200, {
      id: `chatcmpl-${randomBytes(15).toString("hex")}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: record.sent, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: usageOf(record.messages, chunks.length),
      service_tier: "default",
      system_fingerprint: "fp_stand_in",
    });
  };

  const server = await startLoopbackServer(async (request, response) => {
    // Tracked until the response closes (answered, cut or abandoned), so `settled()` is a signal, not a sleep.
    const closed = new Promise<void>((resolve) => response.on("close", resolve));
    inFlight.add(closed);
    void closed.then(() => inFlight.delete(closed));
    await serve(request, response);
  });

  const handle: OpenAiChatServer = {
    baseURL: server.baseURL,
    apiKey: options.apiKeys?.[0] ?? "sk-test-chat",
    requests,
    chunkDelayMs: options.chunkDelayMs ?? 0,
    respondWith(next = defaultChatResponder) {
      respond = next;
    },
    cutNext(afterChunks = 1, how: OpenAiChatCut = "reset") {
      cuts.push({ afterChunks, how });
    },
    settled: async () => {
      await Promise.all([...inFlight]);
    },
    close: () => server.close(),
  };
  return handle;
}
