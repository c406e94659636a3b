import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError, RateLimitError } from "openai";
import { hashedBagOfWordsEmbedding, startOpenAiEmbeddingsServer, type OpenAiEmbeddingsServer } from "../src/peers/openai-embeddings-server";

let server: OpenAiEmbeddingsServer;

beforeAll(async () => {
  server = await startOpenAiEmbeddingsServer({ apiKeys: ["sk-right-key-1234"] });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

const client = (apiKey = server.apiKey) => new OpenAI({ apiKey, baseURL: server.baseURL, maxRetries: 0 });
const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i], 0);
const length = (vector: number[]) => Math.hypot(...vector);

/** A raw request (what the SDK would never send). */
async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseURL}/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error?: { message: string; type: string; param: unknown; code: unknown } } };
}

describe("OpenAI embeddings stand-in", () => {
  it("answers the official SDK (base64, decoded by the SDK) with normalised vectors, in OpenAI's shape", async () => {
    const answer = await client().embeddings.create({
      model: "text-embedding-3-small",
      input: ["Photosynthesis converts light into chemical energy.", "Mitochondria produce ATP."],
    });
    expect(server.requests).toEqual([{ model: "text-embedding-3-small", inputs: 2, encodingFormat: "base64", status: 200 }]);
    expect(answer.object).toBe("list");
    expect(answer.model).toBe("text-embedding-3-small");
    expect(answer.data.map((item) => [item.object, item.index, item.embedding.length])).toEqual([
      ["embedding", 0, 1536],
      ["embedding", 1, 1536],
    ]);
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens);
    for (const item of answer.data) expect(length(item.embedding)).toBeCloseTo(1, 5);
    // Float32 on the wire: the decoded vector is the server's, to float precision.
    const expected = server.embed("Photosynthesis converts light into chemical energy.");
    answer.data[0].embedding.forEach((value, i) => expect(value).toBeCloseTo(expected[i], 6));
  });

  it("answers floats when asked, and honours dimensions for text-embedding-3 models", async () => {
    const answer = await client().embeddings.create({
      model: "text-embedding-3-large",
      input: "cell membrane",
      encoding_format: "float",
      dimensions: 64,
    });
    expect(answer.data).toHaveLength(1);
    expect(answer.data[0].embedding).toEqual(hashedBagOfWordsEmbedding("cell membrane", 64));
    expect((await client().embeddings.create({ model: "text-embedding-3-large", input: "x y" })).data[0].embedding).toHaveLength(3072);
    // Token ids are accepted too (each id a word).
    const tokens = await client().embeddings.create({ model: "text-embedding-ada-002", input: [[101, 202], [303]], encoding_format: "float" });
    expect(tokens.data.map((item) => item.embedding.length)).toEqual([1536, 1536]);
    expect(tokens.usage.prompt_tokens).toBe(3);
  });

  it("makes texts sharing words close and unrelated texts far, deterministically", () => {
    const query = server.embed("photosynthesis in plants");
    const related = server.embed("Plants use photosynthesis to make sugar from light.");
    const unrelated = server.embed("The French Revolution began in 1789.");
    expect(cosine(query, related)).toBeGreaterThan(0.4);
    expect(Math.abs(cosine(query, unrelated))).toBeLessThan(0.05);
    // Case, punctuation, stop words and plurals do not matter.
    expect(cosine(server.embed("The Plant's PHOTOSYNTHESIS!"), server.embed("plants photosynthesis"))).toBeCloseTo(1, 10);
    expect(server.embed("same text")).toEqual(server.embed("same text"));
  });

  it("refuses a request without a key or with a wrong one as OpenAI does (401)", async () => {
    const missing = await post(JSON.stringify({ model: "text-embedding-3-small", input: "a" }), { authorization: "" });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toEqual({
      message: expect.stringContaining("You didn't provide an API key."),
      type: "invalid_request_error",
      param: null,
      code: null,
    });
    const wrong = await client("sk-wrong-key-9999")
      .embeddings.create({ model: "text-embedding-3-small", input: "a" })
      .catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(AuthenticationError);
    expect((wrong as APIError).code).toBe("invalid_api_key");
    expect((wrong as APIError).message).toContain("Incorrect API key provided: sk-*****9999");
  });

  it.each([
    ["no model", { input: "a" }, "you must provide a model parameter"],
    ["a model that is not a string", { model: 3, input: "a" }, "Invalid type for 'model'"],
    ["no input", { model: "text-embedding-3-small" }, "Missing required parameter: 'input'."],
    ["an empty string", { model: "text-embedding-3-small", input: "" }, "'$.input' is invalid"],
    ["an empty list", { model: "text-embedding-3-small", input: [] }, "'$.input' is invalid"],
    ["an empty string in the list", { model: "text-embedding-3-small", input: ["a", ""] }, "'$.input' is invalid"],
    ["mixed inputs", { model: "text-embedding-3-small", input: ["a", [1]] }, "'$.input' is invalid"],
    ["an object input", { model: "text-embedding-3-small", input: { text: "a" } }, "'$.input' is invalid"],
    ["2 049 inputs", { model: "text-embedding-3-small", input: Array.from({ length: 2049 }, () => "a") }, "'$.input' is invalid"],
    ["an unknown encoding", { model: "text-embedding-3-small", input: "a", encoding_format: "int8" }, "Supported values are: 'float' and 'base64'"],
    ["dimensions on ada-002", { model: "text-embedding-ada-002", input: "a", dimensions: 8 }, "does not support specifying dimensions"],
    ["dimensions over the model's", { model: "text-embedding-3-small", input: "a", dimensions: 4096 }, "between 1 and 1536"],
    ["zero dimensions", { model: "text-embedding-3-small", input: "a", dimensions: 0 }, "between 1 and 1536"],
    ["an input over 8 192 tokens", { model: "text-embedding-3-small", input: "word ".repeat(7000) }, "maximum context length is 8192 tokens"],
  ])("answers 400 with OpenAI's error body for %s", async (_case, body, message) => {
    const answer = await post(JSON.stringify(body));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toEqual(expect.objectContaining({ message: expect.stringContaining(message), type: "invalid_request_error" }));
  });

  it("answers 400 for a body that is not JSON, 404 for an unknown model or path", async () => {
    expect((await post("{not json")).body.error?.message).toContain("We could not parse the JSON body of your request.");
    const unknownModel = await client()
      .embeddings.create({ model: "gpt-embed-9", input: "a" })
      .catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(NotFoundError);
    expect((unknownModel as APIError).code).toBe("model_not_found");
    const badRequest = await client()
      .embeddings.create({ model: "text-embedding-3-small", input: "" })
      .catch((error: unknown) => error);
    expect(badRequest).toBeInstanceOf(BadRequestError);
    const wrongPath = await fetch(`${server.baseURL}/embedding`, { method: "POST", body: "{}" });
    expect(wrongPath.status).toBe(404);
    expect(((await wrongPath.json()) as { error: { message: string } }).error.message).toBe("Invalid URL (POST /v1/embedding)");
  });

  it("fails the next requests as asked (500, 429), then answers again", async () => {
    server.failNext(2);
    server.failNext(1, { status: 429 });
    const embed = () =>
      client()
        .embeddings.create({ model: "text-embedding-3-small", input: "a" })
        .catch((error: unknown) => error);
    const first = await embed();
    expect(first).toBeInstanceOf(InternalServerError);
    expect((first as APIError).message).toContain("The server had an error while processing your request");
    expect(await embed()).toBeInstanceOf(InternalServerError);
    const limited = await embed();
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as APIError).code).toBe("rate_limit_exceeded");
    expect(await embed()).toEqual(expect.objectContaining({ object: "list" }));
    expect(server.requests.map((request) => request.status)).toEqual([500, 500, 429, 200]);
  });

  it("lets the SDK's retries pass an injected failure", async () => {
    server.failNext(1);
    const retrying = new OpenAI({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 1 });
    const answer = await retrying.embeddings.create({ model: "text-embedding-3-small", input: "retry me" });
    expect(answer.data).toHaveLength(1);
    expect(server.requests.map((request) => request.status)).toEqual([500, 200]);
  });
});
