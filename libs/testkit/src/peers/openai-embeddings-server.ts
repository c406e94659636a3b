import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { contentWords, tokenizeWords } from "@study/ai/text";
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
  type OpenAiFailure,
  type OpenAiReply,
} from "./openai-http";

export { openAiError, type OpenAiFailure } from "./openai-http";

/**
 * A local OpenAI embeddings endpoint on loopback: `POST /v1/embeddings` as OpenAI speaks it, for the official SDK
 * (`baseURL: server.baseURL`) and any OpenAI-compatible client.
 *
 * - Authentication: `Authorization: Bearer <key>` with a key of `apiKeys` (default: any non-empty key); none is
 *   401 with OpenAI's "You didn't provide an API key" body, a wrong one 401 `invalid_api_key`.
 * - The body is checked as OpenAI checks it: JSON; `model` a string naming a known model (else 404
 *   `model_not_found`); `input` a non-empty string, an array of 1-2 048 non-empty strings, an array of token ids or
 *   of arrays of token ids; `encoding_format` "float" or "base64" (the Node SDK asks for base64 and decodes it);
 *   `dimensions` a positive integer up to the model's length, only for text-embedding-3 models; an input over
 *   8 192 tokens is refused. Bad requests are 400 with OpenAI's error body `{error: {message, type, param, code}}`.
 * - The answer: `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`.
 *
 * Vectors are deterministic and meaningful: a hashed bag of the text's content words (lower case, punctuation and
 * stop words dropped, plurals folded: `contentWords` of @study/ai), each word a ±1 in a hashed slot weighted
 * 1 + ln(count), L2-normalised. Texts sharing words are close (cosine ≈ shared weight), texts sharing none are
 * ≈ 0 apart. Token-id inputs embed each id as a word. Token counts are estimated (4 characters a token).
 */

/** Known models and their native vector length. */
const DEFAULT_MODELS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};
const MAX_INPUTS = 2048;
const MAX_INPUT_TOKENS = 8192;

export interface OpenAiEmbeddingsRequest {
  /** As sent; absent when the request failed before reading it. */
  model?: string;
  inputs: number;
  encodingFormat?: string;
  dimensions?: number;
  status: number;
}

export interface OpenAiEmbeddingsServerOptions {
  /** Keys accepted as `Authorization: Bearer <key>`; default any non-empty key. */
  apiKeys?: string[];
  /** Extra models (name → vector length) beside text-embedding-3-small/-large and ada-002. */
  models?: Record<string, number>;
}

export interface OpenAiEmbeddingsServer {
  /** e.g. `http://127.0.0.1:40123/v1`: the SDK's baseURL. */
  baseURL: string;
  /** A key the server accepts. */
  apiKey: string;
  /** Every request to /v1/embeddings, in order. */
  requests: OpenAiEmbeddingsRequest[];
  /** The next `times` requests (default 1) get this failure (default OpenAI's 500) instead of embeddings. */
  failNext(times?: number, failure?: OpenAiFailure): void;
  /** The vector the server answers for `text` (model length or `dimensions`). */
  embed(text: string, dimensions?: number): number[];
  close(): Promise<void>;
}

/** The stand-in's vector for a text: a hashed, signed bag of its content words, L2-normalised. */
export function hashedBagOfWordsEmbedding(text: string, dimensions: number): number[] {
  let words = contentWords(text);
  if (words.length === 0) words = tokenizeWords(text);
  if (words.length === 0) words = ["\u0000empty"];
  return hashedBag(words, dimensions);
}

function hashedBag(words: readonly string[], dimensions: number): number[] {
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const vector = new Array<number>(dimensions).fill(0);
  for (const [word, count] of counts) {
    const digest = createHash("sha256").update(word).digest();
    const slot = digest.readUInt32BE(0) % dimensions;
    const sign = digest[4] & 1 ? -1 : 1;
    vector[slot] += sign * (1 + Math.log(count));
  }
  const length = Math.hypot(...vector);
  return length === 0 ? vector.map((_, index) => (index === 0 ? 1 : 0)) : vector.map((value) => value / length);
}

const estimatedTokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));

const isTokenArray = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.every((token) => Number.isInteger(token) && (token as number) >= 0);

/** The inputs of a request as texts (token ids as words) with their token counts, or null when `input` is invalid. */
function inputsOf(input: unknown): { words: string[] | null; text: string; tokens: number }[] | null {
  if (typeof input === "string") return input.length > 0 ? [{ words: null, text: input, tokens: estimatedTokens(input) }] : null;
  if (isTokenArray(input)) return [{ words: input.map((token) => `token${token}`), text: "", tokens: input.length }];
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_INPUTS) return null;
  if (input.every((item) => typeof item === "string" && item.length > 0)) {
    return (input as string[]).map((text) => ({ words: null, text, tokens: estimatedTokens(text) }));
  }
  if (input.every(isTokenArray)) return input.map((tokens) => ({ words: tokens.map((token) => `token${token}`), text: "", tokens: tokens.length }));
  return null;
}

const invalidInput = () =>
  openAiError("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", "invalid_request_error");

export async function startOpenAiEmbeddingsServer(options: OpenAiEmbeddingsServerOptions = {}): Promise<OpenAiEmbeddingsServer> {
  const models = { ...DEFAULT_MODELS, ...options.models };
  const requests: OpenAiEmbeddingsRequest[] = [];
  const failures: OpenAiFailure[] = [];
  const accepts = (key: string) => (options.apiKeys ? options.apiKeys.includes(key) : key.length > 0);

  const handle = async (request: IncomingMessage): Promise<OpenAiReply> => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "POST" || path !== "/v1/embeddings") {
      await readBody(request);
      return invalidUrl(request, path);
    }
    const record: OpenAiEmbeddingsRequest = { inputs: 0, status: 200 };
    requests.push(record);
    const answer = (status: number, body: unknown): OpenAiReply => {
      record.status = status;
      return { status, body };
    };
    const body = await readBody(request);

    const refusedKey = refuseKey(request, accepts);
    if (refusedKey) return answer(refusedKey.status, refusedKey.body);
    const parsed = parseJsonObject(body);
    if (!("fields" in parsed)) return answer(parsed.status, parsed.body);
    const { fields } = parsed;
    if (typeof fields.model === "string") record.model = fields.model;
    if (typeof fields.encoding_format === "string") record.encodingFormat = fields.encoding_format;
    if (typeof fields.dimensions === "number") record.dimensions = fields.dimensions;

    const checkedModel = modelParameter(fields.model);
    if (!("model" in checkedModel)) return answer(checkedModel.status, checkedModel.body);
    const { model } = checkedModel;
    if (fields.input === undefined) {
      return answer(400, openAiError("Missing required parameter: 'input'.", "invalid_request_error", "input", "missing_required_parameter"));
    }
    const inputs = inputsOf(fields.input);
    if (!inputs) return answer(400, invalidInput());
    record.inputs = inputs.length;
    const format = fields.encoding_format ?? "float";
    if (format !== "float" && format !== "base64") {
      return answer(
        400,
        openAiError(
          `Invalid value: '${typeof format === "string" ? format : JSON.stringify(format)}'. Supported values are: 'float' and 'base64'.`,
          "invalid_request_error",
          "encoding_format",
          "invalid_value",
        ),
      );
    }
    const native = models[model];
    if (native === undefined) {
      const notFound = modelNotFound(model);
      return answer(notFound.status, notFound.body);
    }
    let dimensions = native;
    if (fields.dimensions !== undefined) {
      if (!model.startsWith("text-embedding-3")) {
        return answer(400, openAiError("This model does not support specifying dimensions.", "invalid_request_error", "dimensions"));
      }
      if (typeof fields.dimensions !== "number" || !Number.isInteger(fields.dimensions) || fields.dimensions < 1 || fields.dimensions > native) {
        return answer(
          400,
          openAiError(`Invalid 'dimensions': must be an integer between 1 and ${native}.`, "invalid_request_error", "dimensions", "invalid_value"),
        );
      }
      dimensions = fields.dimensions;
    }
    const tooLong = inputs.find((input) => input.tokens > MAX_INPUT_TOKENS);
    if (tooLong) {
      return answer(
        400,
        openAiError(
          `This model's maximum context length is ${MAX_INPUT_TOKENS} tokens, however you requested ${tooLong.tokens} tokens (${tooLong.tokens} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
          "invalid_request_error",
        ),
      );
    }

    const failure = failures.shift();
    if (failure) return answer(failure.status, failureBody(failure, model));

    const tokens = inputs.reduce((sum, input) => sum + input.tokens, 0);
    return answer(200, {
      object: "list",
      data: inputs.map((input, index) => {
        const vector = input.words ? hashedBag(input.words, dimensions) : hashedBagOfWordsEmbedding(input.text, dimensions);
        return {
          object: "embedding",
          index,
          embedding: format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
        };
      }),
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };

  const server = await startLoopbackServer(async (request, response) => {
    const reply = await handle(request);
    sendJson(response, reply.status, reply.body);
  });
  return {
    baseURL: server.baseURL,
    apiKey: options.apiKeys?.[0] ?? "sk-test-embeddings",
    requests,
    failNext(times = 1, failure: OpenAiFailure = { status: 500 }) {
      for (let i = 0; i < times; i += 1) failures.push(failure);
    },
    embed: (text, dimensions = DEFAULT_MODELS["text-embedding-3-small"]) => hashedBagOfWordsEmbedding(text, dimensions),
    close: () => server.close(),
  };
}
