import { createOpenAiClient, openAiConfigSchema } from "@study/ai";
import { appErrorOf } from "@study/testkit/refusal";
import { startOpenAiEmbeddingsServer, type OpenAiEmbeddingsServer } from "@study/testkit";
import { startOpenAiPeer, type OpenAiPeer, type PeerReply } from "../../../../../libs/ai/test/support/openai-peer";
import {
  createEmbeddingProvider,
  DEFAULT_EMBEDDING_MODEL,
  embeddingConfigSchema,
  OpenAiEmbeddingProvider,
} from "../../../src/adapters/embeddings/openai-embedding-provider";

let server: OpenAiEmbeddingsServer;

beforeAll(async () => {
  server = await startOpenAiEmbeddingsServer({ apiKeys: ["sk-documents-1234"] });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

const config = (overrides: Record<string, string> = {}) =>
  openAiConfigSchema
    .extend(embeddingConfigSchema.shape)
    .parse({ OPENAI_API_KEY: server.apiKey, OPENAI_BASE_URL: server.baseURL, OPENAI_MAX_RETRIES: "0", ...overrides });

const provider = (options: { model?: string; batchSize?: number; apiKey?: string } = {}) =>
  new OpenAiEmbeddingProvider({
    client: createOpenAiClient({ apiKey: options.apiKey ?? server.apiKey, baseURL: server.baseURL, maxRetries: 0 }),
    model: options.model,
    batchSize: options.batchSize,
  });

describe("OpenAiEmbeddingProvider", () => {
  it("embeds texts in batches through the official SDK, in order", async () => {
    const texts = Array.from({ length: 7 }, (_, i) => `Passage ${i} about membranes and cell number ${i}.`);
    const vectors = await provider({ batchSize: 3 }).embed(texts);
    expect(server.requests.map((request) => [request.model, request.inputs, request.encodingFormat, request.status])).toEqual([
      [DEFAULT_EMBEDDING_MODEL, 3, "base64", 200],
      [DEFAULT_EMBEDDING_MODEL, 3, "base64", 200],
      [DEFAULT_EMBEDDING_MODEL, 1, "base64", 200],
    ]);
    expect(vectors).toHaveLength(7);
    vectors.forEach((vector, i) => {
      const expected = server.embed(texts[i]);
      expect(vector).toHaveLength(1536);
      vector.slice(0, 50).forEach((value, j) => expect(value).toBeCloseTo(expected[j], 6));
    });
    expect(await provider().embed([])).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });

  it("sends a blank text as a space (OpenAI refuses empty inputs)", async () => {
    const [vector] = await provider().embed(["  "]);
    expect(vector).toHaveLength(1536);
    expect(server.requests).toEqual([expect.objectContaining({ status: 200, inputs: 1 })]);
  });

  it("is built from the configuration, or not at all without an API key", () => {
    expect(createEmbeddingProvider(config({ OPENAI_API_KEY: "" }))).toBeNull();
    expect(createEmbeddingProvider(config())?.model).toBe("text-embedding-3-small");
    expect(createEmbeddingProvider(config({ OPENAI_EMBEDDING_MODEL: "text-embedding-3-large" }))?.model).toBe("text-embedding-3-large");
  });

  it("embeds with the configured model and dimensions at the configured server", async () => {
    const configured = createEmbeddingProvider(config({ OPENAI_EMBEDDING_MODEL: "text-embedding-3-large" }));
    const vectors = await configured?.embed(["photosynthesis"]);
    expect(vectors?.[0]).toHaveLength(3072);
    const shorter = createEmbeddingProvider(config({ OPENAI_EMBEDDING_DIMENSIONS: "512" }));
    expect((await shorter?.embed(["photosynthesis"]))?.[0]).toHaveLength(512);
    expect(server.requests.map((request) => [request.model, request.dimensions])).toEqual([
      ["text-embedding-3-large", undefined],
      ["text-embedding-3-small", 512],
    ]);
  });

  it.each([
    ["a server error", () => server.failNext(1), {}, "Embedding failed (text-embedding-3-small): The AI service failed (HTTP 500)"],
    ["a rate limit", () => server.failNext(1, { status: 429 }), {}, "rate-limiting"],
    ["a wrong API key", () => undefined, { apiKey: "sk-wrong" }, "rejected the API key (HTTP 401): check OPENAI_API_KEY"],
    [
      "an unknown model",
      () => undefined,
      { model: "no-such-model" },
      "does not offer the requested model or endpoint (HTTP 404): The model `no-such-model` does not exist",
    ],
  ])("reports %s as an upstream failure (502) with the reason", async (_case, arrange, options, message) => {
    arrange();
    const error = await appErrorOf(provider(options).embed(["a text"]));
    expect([error.kind, error.code]).toEqual(["upstream", "EMBEDDING_FAILED"]);
    expect(error.message).toContain(message);
    expect(error.cause).toBeDefined();
  });

  it("rejects with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("shutting down"));
    await expect(provider().embed(["a"], controller.signal)).rejects.toThrow("shutting down");
    expect(server.requests).toHaveLength(0);
  });
});

describe("OpenAiEmbeddingProvider against a misbehaving server", () => {
  let peer: OpenAiPeer;
  let reply: () => PeerReply;

  beforeAll(async () => {
    peer = await startOpenAiPeer(() => reply());
  });

  afterAll(async () => {
    await peer.close();
  });

  const peerProvider = () => new OpenAiEmbeddingProvider({ client: createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 0 }) });

  /** An embedding as the SDK asks for it (base64 of little-endian float32), which it decodes. */
  const base64 = (values: number[]) => Buffer.from(new Float32Array(values).buffer).toString("base64");

  it.each([
    ["an answer without data", { json: { object: "list" } }, "is not a list of embeddings"],
    [
      "a missing embedding",
      { json: { object: "list", data: [{ object: "embedding", index: 0, embedding: base64([0.1]) }] } },
      "no embedding for input 1",
    ],
    [
      "an empty embedding",
      {
        json: {
          object: "list",
          data: [
            { index: 0, embedding: "" },
            { index: 1, embedding: base64([0.1]) },
          ],
        },
      },
      "no embedding for input 0",
    ],
    [
      "vectors of different lengths",
      {
        json: {
          object: "list",
          data: [
            { index: 1, embedding: base64([0.1]) },
            { index: 0, embedding: base64([0.1, 0.2]) },
          ],
        },
      },
      "vectors of different lengths",
    ],
  ])("refuses %s as an upstream failure", async (_case, answer, message) => {
    reply = () => answer;
    const error = await appErrorOf(peerProvider().embed(["one", "two"]));
    expect([error.kind, error.code]).toEqual(["upstream", "EMBEDDING_FAILED"]);
    expect(error.message).toContain(message);
  });

  it("puts the vectors in input order by their index", async () => {
    reply = () => ({
      json: {
        object: "list",
        data: [
          { index: 1, embedding: base64([0.5, 0.25]) },
          { index: 0, embedding: base64([1, 2]) },
        ],
      },
    });
    expect(await peerProvider().embed(["one", "two"])).toEqual([
      [1, 2],
      [0.5, 0.25],
    ]);
  });
});
