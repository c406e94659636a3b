import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The HTTP plumbing the OpenAI stand-ins share (embeddings, chat completions): OpenAI's error bodies, Bearer
 * authentication, JSON body parsing and a loopback server, so each stand-in only describes its own endpoint.
 */

/** The body OpenAI sends with an error status. */
export function openAiError(message: string, type: string, param: string | null = null, code: string | null = null) {
  return { error: { message, type, param, code } };
}

/** An injected failure: OpenAI's 500 (server_error) or 429 (rate limit), or another status with OpenAI's body. */
export interface OpenAiFailure {
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
}

/** A status with its JSON body. */
export interface OpenAiReply {
  status: number;
  body: unknown;
}

/** OpenAI's body for an injected failure (the rate-limit wording names the model). */
export function failureBody(failure: OpenAiFailure, model: string | undefined) {
  if (failure.status === 429) {
    return openAiError(
      failure.message ??
        `Rate limit reached for ${model ?? "the model"} on requests per min (RPM): Limit 3000, Used 3000, Requested 1. Please try again in 20ms.`,
      failure.type ?? "requests",
      null,
      failure.code === undefined ? "rate_limit_exceeded" : failure.code,
    );
  }
  return openAiError(
    failure.message ?? "The server had an error while processing your request. Sorry about that!",
    failure.type ?? "server_error",
    null,
    failure.code ?? null,
  );
}

export async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** OpenAI's 404 for a path it does not serve. */
export const invalidUrl = (request: IncomingMessage, path: string): OpenAiReply => ({
  status: 404,
  body: openAiError(`Invalid URL (${request.method ?? "GET"} ${path})`, "invalid_request_error"),
});

/** OpenAI's 401 when the Bearer key is missing or not accepted; null when the key is accepted. */
export function refuseKey(request: IncomingMessage, accepts: (key: string) => boolean): OpenAiReply | null {
  const authorization = request.headers.authorization ?? "";
  const key = /^Bearer\s+(.*)$/i.exec(authorization)?.[1]?.trim() ?? "";
  if (!key) {
    return {
      status: 401,
      body: openAiError(
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
      ),
    };
  }
  if (accepts(key)) return null;
  const shown = key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : key;
  return {
    status: 401,
    body: openAiError(
      `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      "invalid_request_error",
      null,
      "invalid_api_key",
    ),
  };
}

/** The body as a JSON object, or OpenAI's 400 for unparsable JSON or a body that is not an object. */
export function parseJsonObject(body: Buffer): { fields: Record<string, unknown> } | OpenAiReply {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    return {
      status: 400,
      body: openAiError(
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
        "invalid_request_error",
      ),
    };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { status: 400, body: openAiError("Invalid type for body: expected an object.", "invalid_request_error") };
  }
  return { fields: json as Record<string, unknown> };
}

/** How OpenAI names a JSON value's type in "Invalid type" messages. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  if (typeof value === "object") return "an object";
  if (typeof value === "boolean") return "a boolean";
  return `a ${typeof value}`;
}

/** The `model` parameter, or OpenAI's 400 when it is missing or not a string. */
export function modelParameter(model: unknown): { model: string } | OpenAiReply {
  if (typeof model === "string") return { model };
  if (model === undefined || model === null) {
    return { status: 400, body: openAiError("you must provide a model parameter", "invalid_request_error") };
  }
  return {
    status: 400,
    body: openAiError(
      `Invalid type for 'model': expected a string, but got ${Array.isArray(model) ? "an array" : typeof model} instead.`,
      "invalid_request_error",
      "model",
      "invalid_type",
    ),
  };
}

/** OpenAI's 404 for a model it does not know. */
export const modelNotFound = (model: string): OpenAiReply => ({
  status: 404,
  body: openAiError(`The model \`${model}\` does not exist or you do not have access to it.`, "invalid_request_error", null, "model_not_found"),
});

export interface LoopbackServer {
  /** e.g. `http://127.0.0.1:40123/v1`: the SDK's baseURL. */
  baseURL: string;
  close(): Promise<void>;
}

/** Serves `handle` on an ephemeral loopback port; a handler that throws answers OpenAI's 500. */
export async function startLoopbackServer(handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>): Promise<LoopbackServer> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else sendJson(response, 500, openAiError(`stand-in failed: ${String(error)}`, "server_error"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
