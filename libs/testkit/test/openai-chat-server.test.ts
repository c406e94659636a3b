import OpenAI, { APIError, AuthenticationError, BadRequestError, InternalServerError, NotFoundError, RateLimitError } from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import {
  chatDeltas,
  defaultChatResponder,
  startOpenAiChatServer,
  type OpenAiChatRequest,
  type OpenAiChatServer,
} from "../src/peers/openai-chat-server";

let server: OpenAiChatServer;

beforeAll(async () => {
  server = await startOpenAiChatServer({ apiKeys: ["sk-right-key-1234"] });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
  server.respondWith();
  server.chunkDelayMs = 0;
});

const client = (apiKey = server.apiKey) => new OpenAI({ apiKey, baseURL: server.baseURL, maxRetries: 0 });

const ANSWER = "Photosynthesis turns light, water and carbon dioxide into sugar [1].";
const MESSAGES: ChatCompletionMessageParam[] = [
  { role: "system", content: "Answer only from the passages.\n<passages>\n[1] Plants make sugar from light.\n</passages>" },
  { role: "user", content: "What does photosynthesis do?" },
];

const streamed = (messages = MESSAGES, includeUsage = false) =>
  client().chat.completions.create({
    model: "gpt-4o-mini",
    messages,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });

/** Every chunk the SDK yields, or the chunks before the error it threw. */
async function collect(stream: AsyncIterable<ChatCompletionChunk>) {
  const chunks: ChatCompletionChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
    return { chunks, error: undefined };
  } catch (error) {
    return { chunks, error };
  }
}

const contentOf = (chunks: ChatCompletionChunk[]) => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("");

/** A raw request (what the SDK would never send). */
async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer sk-right-key-1234", "content-type": "application/json", ...headers },
    body,
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    text: await response.text(),
  };
}

describe("OpenAI chat-completions stand-in", () => {
  it("streams the scripted answer to the official SDK in several ordered deltas, role first, finish reason last", async () => {
    const seen: OpenAiChatRequest[] = [];
    server.respondWith((request) => {
      seen.push(request);
      return ANSWER;
    });
    const { chunks, error } = await collect(await streamed());
    expect(error).toBeUndefined();

    expect(chunks[0].choices[0]).toEqual({ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null });
    const deltas = chunks.slice(1, -1).map((chunk) => chunk.choices[0].delta.content);
    expect(deltas).toEqual(chatDeltas(ANSWER));
    expect(deltas.length).toBeGreaterThan(5);
    expect(contentOf(chunks)).toBe(ANSWER);
    expect(chunks[chunks.length - 1].choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
    for (const chunk of chunks) {
      expect(chunk).toEqual(
        expect.objectContaining({ id: chunks[0].id, object: "chat.completion.chunk", created: chunks[0].created, model: "gpt-4o-mini" }),
      );
      expect(chunk).not.toHaveProperty("usage");
    }
    expect(chunks[0].id).toMatch(/^chatcmpl-/);

    // The responder saw the messages as sent; the record keeps them for assertions on the prompt.
    expect(seen).toHaveLength(1);
    expect(server.requests).toEqual([
      expect.objectContaining({
        model: "gpt-4o-mini",
        messages: MESSAGES,
        stream: true,
        includeUsage: false,
        status: 200,
        outcome: "answered",
        sent: ANSWER,
      }),
    ]);
    expect(server.requests[0].messages[0].content).toContain("<passages>");
  });

  it("speaks server-sent events on the wire and ends with data: [DONE]", async () => {
    server.respondWith(() => "Two words.");
    const answer = await post(JSON.stringify({ model: "gpt-4o-mini", messages: MESSAGES, stream: true }));
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe("text/event-stream; charset=utf-8");
    const events = answer.text.split("\n\n");
    expect(events.pop()).toBe("");
    expect(events.pop()).toBe("data: [DONE]");
    expect(events).toHaveLength(4);
    const chunks = events.map((event) => {
      expect(event).toMatch(/^data: \{.*\}$/);
      return JSON.parse(event.slice("data: ".length)) as ChatCompletionChunk;
    });
    expect(chunks.map((chunk) => chunk.choices[0].delta)).toEqual([
      { role: "assistant", content: "", refusal: null },
      { content: "Two" },
      { content: " words." },
      {},
    ]);
  });

  it("adds the usage chunk when asked (usage null on the others)", async () => {
    server.respondWith(() => ANSWER);
    const { chunks } = await collect(await streamed(MESSAGES, true));
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(
      expect.objectContaining({ completion_tokens: chatDeltas(ANSWER).length, prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) }),
    );
    expect(last.usage?.total_tokens).toBe((last.usage?.prompt_tokens ?? 0) + (last.usage?.completion_tokens ?? 0));
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(contentOf(chunks)).toBe(ANSWER);
    expect(server.requests[0].includeUsage).toBe(true);
  });

  it("answers a chat.completion object without stream", async () => {
    server.respondWith(() => ANSWER);
    const completion = await client().chat.completions.create({
      model: "gpt-4.1-mini",
      messages: MESSAGES,
      temperature: 0,
      max_completion_tokens: 200,
    });
    expect(completion).toEqual(
      expect.objectContaining({
        object: "chat.completion",
        model: "gpt-4.1-mini",
        choices: [
          { index: 0, message: { role: "assistant", content: ANSWER, refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" },
        ],
      }),
    );
    expect(completion.usage?.completion_tokens).toBe(chatDeltas(ANSWER).length);
    expect(server.requests).toEqual([expect.objectContaining({ stream: false, outcome: "answered", sent: ANSWER })]);
    expect(server.requests[0].body).toEqual(expect.objectContaining({ temperature: 0, max_completion_tokens: 200 }));
  });

  it("streams the responder's own chunks and finish reason as given", async () => {
    server.respondWith(() => ({ chunks: ["Mito", "chondria", " [2]"], finishReason: "length" }));
    const { chunks } = await collect(await streamed());
    expect(chunks.slice(1, -1).map((chunk) => chunk.choices[0].delta.content)).toEqual(["Mito", "chondria", " [2]"]);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe("length");
  });

  it("by default cites the first listed passage, or says the material lacks the answer", async () => {
    const { chunks } = await collect(
      await streamed([
        {
          role: "system",
          content: "Cite passages as [n], e.g. [3].\n<passages>\n[2] Mitochondria produce ATP for the cell.\n[4] Other.\n</passages>",
        },
        { role: "user", content: "What makes ATP?" },
      ]),
    );
    expect(contentOf(chunks)).toBe("According to your material, Mitochondria produce ATP for the cell [2].");
    const none = await client().chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello?" }] });
    expect(none.choices[0].message.content).toBe("The material does not contain the answer.");
    expect(defaultChatResponder({ ...server.requests[1], messages: [{ role: "user", content: "see [7]" }] })).toBe("See your material [7].");
  });

  it("refuses a request without a key or with a wrong one as OpenAI does (401)", async () => {
    const missing = await post(JSON.stringify({ model: "gpt-4o-mini", messages: MESSAGES }), { authorization: "" });
    expect(missing.status).toBe(401);
    expect((JSON.parse(missing.text) as { error: unknown }).error).toEqual({
      message: expect.stringContaining("You didn't provide an API key."),
      type: "invalid_request_error",
      param: null,
      code: null,
    });
    expect(contentOf((await collect(await streamed())).chunks)).toContain("[1]");
    const refused = await client("sk-wrong-key-9999")
      .chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES, stream: true })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect((refused as APIError).code).toBe("invalid_api_key");
    expect(server.requests.map((request) => [request.status, request.outcome])).toEqual([
      [401, "refused"],
      [200, "answered"],
      [401, "refused"],
    ]);
  });

  const user = { role: "user", content: "Hi" };
  it.each([
    ["no model", { messages: [user] }, "you must provide a model parameter", null],
    ["a model that is not a string", { model: 4, messages: [user] }, "Invalid type for 'model'", "model"],
    ["no messages", { model: "gpt-4o-mini" }, "Missing required parameter: 'messages'.", "messages"],
    ["messages that are not a list", { model: "gpt-4o-mini", messages: "Hi" }, "Invalid type for 'messages'", "messages"],
    ["no message", { model: "gpt-4o-mini", messages: [] }, "empty array", "messages"],
    ["a message that is not an object", { model: "gpt-4o-mini", messages: ["Hi"] }, "Invalid type for 'messages[0]'", "messages[0]"],
    ["a message without a role", { model: "gpt-4o-mini", messages: [{ content: "Hi" }] }, "Missing required parameter", "messages[0].role"],
    ["a tool message", { model: "gpt-4o-mini", messages: [user, { role: "tool", content: "x" }] }, "Invalid value: 'tool'", "messages[1].role"],
    ["a message without content", { model: "gpt-4o-mini", messages: [{ role: "user" }] }, "Missing required parameter", "messages[0].content"],
    [
      "content parts",
      { model: "gpt-4o-mini", messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] },
      "expected a string",
      "messages[0].content",
    ],
    [
      "an unknown message field",
      { model: "gpt-4o-mini", messages: [{ ...user, tool_calls: [] }] },
      "Unrecognized request argument",
      "messages[0].tool_calls",
    ],
    ["a stream that is not a boolean", { model: "gpt-4o-mini", messages: [user], stream: "yes" }, "Invalid type for 'stream'", "stream"],
    [
      "stream options without stream",
      { model: "gpt-4o-mini", messages: [user], stream_options: { include_usage: true } },
      "only allowed when 'stream' is enabled",
      "stream_options",
    ],
    ["a temperature over 2", { model: "gpt-4o-mini", messages: [user], temperature: 3 }, "Expected a value <= 2", "temperature"],
    ["zero max_tokens", { model: "gpt-4o-mini", messages: [user], max_tokens: 0 }, "Expected a value >= 1", "max_tokens"],
  ])("answers 400 with OpenAI's error body for %s", async (_case, body, message, param) => {
    const answer = await post(JSON.stringify(body));
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.text) as { error: unknown }).error).toEqual(
      expect.objectContaining({ message: expect.stringContaining(message), type: "invalid_request_error", param }),
    );
    expect(server.requests).toEqual([expect.objectContaining({ status: 400, outcome: "refused" })]);
  });

  it("becomes the SDK's error classes: 400 for a bad body, 404 for an unknown model or path", async () => {
    expect(JSON.parse((await post("{not json")).text)).toEqual({
      error: expect.objectContaining({ message: expect.stringContaining("could not parse the JSON body") }),
    });
    const badRequest = await client()
      .chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES, temperature: 5, stream: true })
      .catch((error: unknown) => error);
    expect(badRequest).toBeInstanceOf(BadRequestError);
    expect((badRequest as APIError).param).toBe("temperature");
    const unknownModel = await client()
      .chat.completions.create({ model: "gpt-9-ultra", messages: MESSAGES, stream: true })
      .catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(NotFoundError);
    expect((unknownModel as APIError).code).toBe("model_not_found");
    expect((unknownModel as APIError).message).toContain("The model `gpt-9-ultra` does not exist");
    const wrongPath = await fetch(`${server.baseURL}/completions`, { method: "POST", body: "{}" });
    expect(wrongPath.status).toBe(404);
    expect(((await wrongPath.json()) as { error: { message: string } }).error.message).toBe("Invalid URL (POST /v1/completions)");
  });

  it("answers the responder's error status with OpenAI's body, or the body it gives", async () => {
    server.respondWith(() => ({ error: { status: 429 } }));
    const limited = await streamed().catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as APIError).code).toBe("rate_limit_exceeded");
    expect((limited as APIError).message).toContain("Rate limit reached for gpt-4o-mini");
    server.respondWith(() => ({ error: { status: 503, body: { error: { message: "Overloaded", type: "server_error", param: null, code: null } } } }));
    const overloaded = await client()
      .chat.completions.create({ model: "gpt-4o-mini", messages: MESSAGES })
      .catch((error: unknown) => error);
    expect(overloaded).toBeInstanceOf(InternalServerError);
    expect((overloaded as APIError).status).toBe(503);
    expect((overloaded as APIError).message).toContain("Overloaded");
    expect(server.requests.map((request) => [request.status, request.outcome])).toEqual([
      [429, "refused"],
      [503, "refused"],
    ]);
  });

  it("cuts a stream mid-way: a reset connection makes the SDK's iterator throw after the first deltas", async () => {
    server.respondWith(() => ANSWER);
    server.cutNext(2);
    const { chunks, error } = await collect(await streamed());
    // undici's "terminated" (a TypeError of Node's realm, not jest's): a broken connection, not an API error.
    expect(error).toMatchObject({ name: "TypeError", message: "terminated" });
    expect(error).not.toBeInstanceOf(APIError);
    expect(contentOf(chunks)).toBe(chatDeltas(ANSWER).slice(0, 2).join(""));
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
    await server.settled();
    expect(server.requests[0]).toEqual(expect.objectContaining({ outcome: "cut", sent: chatDeltas(ANSWER).slice(0, 2).join("") }));

    // Only the next stream was cut.
    expect(contentOf((await collect(await streamed())).chunks)).toBe(ANSWER);
  });

  it("cuts a stream with OpenAI's in-stream error event: the SDK throws an APIError", async () => {
    server.respondWith(() => ANSWER);
    server.cutNext(1, "error");
    const { chunks, error } = await collect(await streamed());
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain("The server had an error while processing your request");
    expect(contentOf(chunks)).toBe(chatDeltas(ANSWER)[0]);
  });

  it("cuts a stream by ending it early: the SDK just stops, without a finish reason", async () => {
    server.respondWith(() => ANSWER);
    server.cutNext(3, "end");
    const { chunks, error } = await collect(await streamed());
    expect(error).toBeUndefined();
    expect(contentOf(chunks)).toBe(chatDeltas(ANSWER).slice(0, 3).join(""));
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
  });

  it("paces deltas with the chunk delay, and notices a client that leaves mid-stream", async () => {
    server.chunkDelayMs = 15;
    const long = Array.from({ length: 200 }, (_, index) => `word${index}`).join(" ");
    server.respondWith(() => long);
    const stream = await streamed();
    let received = "";
    for await (const chunk of stream) {
      received += chunk.choices[0]?.delta.content ?? "";
      // The first delta arrives while the server is still answering: it streams, it does not buffer.
      if (received) {
        expect(server.requests[0].outcome).toBe("pending");
      }
      if (received.split(" ").length === 3) break;
    }
    await server.settled();
    expect(received).toBe("word0 word1 word2");
    expect(server.requests[0].outcome).toBe("client-closed");
    expect(server.requests[0].sent.length).toBeLessThan(long.length);
  });

  it("splits an answer into deltas that join back to it exactly", () => {
    expect(chatDeltas("Hello  world [1].\n")).toEqual(["Hello", "  world", " [1].", "\n"]);
    expect(chatDeltas("  lead")).toEqual(["  lead"]);
    expect(chatDeltas("")).toEqual([]);
    const text = "A\tfew  words,\nacross lines. ";
    expect(chatDeltas(text).join("")).toBe(text);
  });
});
