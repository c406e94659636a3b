import { callOpenAi, createOpenAiClient, fromOpenAiError } from "@study/ai";
import { AppError } from "@study/platform/errors";
import { APIError, OpenAIError } from "openai";
import { openAiErrorBody, startOpenAiPeer, type OpenAiPeer, type PeerReply } from "./support/openai-peer";

let peer: OpenAiPeer;
let reply: () => PeerReply;

beforeAll(async () => {
  peer = await startOpenAiPeer(() => reply());
});

afterAll(async () => {
  await peer.close();
});

/** What a real SDK call raises when the server answers `answer`, mapped. */
async function mapped(answer: PeerReply): Promise<AppError> {
  reply = () => answer;
  const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 0 });
  try {
    await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
  } catch (error) {
    expect(error).toBeInstanceOf(APIError);
    return fromOpenAiError(error);
  }
  throw new Error("expected the call to fail");
}

describe("fromOpenAiError", () => {
  it("reports a rejected key as the service's configuration problem (503), not the caller's sign-in (401)", async () => {
    const error = await mapped({
      status: 401,
      json: openAiErrorBody("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key"),
    });
    expect(error).toMatchObject({
      kind: "unavailable",
      code: "AI_AUTH_FAILED",
      message: "The AI service rejected the API key (HTTP 401): check OPENAI_API_KEY",
    });
    expect(error.cause).toBeInstanceOf(APIError);
  });

  it("reports rate limiting with the wait the server asks for", async () => {
    expect(
      await mapped({ status: 429, headers: { "retry-after": "30" }, json: openAiErrorBody("Rate limit reached", "requests", "rate_limit_exceeded") }),
    ).toMatchObject({
      kind: "rate_limited",
      code: "RATE_LIMITED",
      action: "RETRY_LATER",
      details: [{ field: "retryAfterSeconds", message: "30" }],
    });
    expect(await mapped({ status: 429, headers: { "retry-after-ms": "1500" }, json: openAiErrorBody("Slow down", "requests") })).toMatchObject({
      details: [{ field: "retryAfterSeconds", message: "2" }],
    });
  });

  it("tells an exhausted quota (which waiting does not fix) from rate limiting", async () => {
    expect(
      await mapped({ status: 429, json: openAiErrorBody("You exceeded your current quota", "insufficient_quota", "insufficient_quota") }),
    ).toMatchObject({
      kind: "unavailable",
      code: "AI_QUOTA_EXCEEDED",
    });
  });

  it.each([
    [
      403,
      "Project does not have access to model",
      { kind: "unavailable", code: "AI_FORBIDDEN", message: "The AI service refused access (HTTP 403): Project does not have access to model" },
    ],
    [404, "The model `gpt-9` does not exist", { kind: "unavailable", code: "AI_MODEL_NOT_FOUND" }],
    [
      400,
      "Invalid file format.",
      { kind: "precondition", code: "AI_REQUEST_REJECTED", message: "The AI service rejected the request (HTTP 400): Invalid file format." },
    ],
    [422, "Unprocessable", { kind: "precondition", code: "AI_REQUEST_REJECTED" }],
    [413, "Maximum content size limit exceeded", { kind: "too_large", code: "FILE_TOO_LARGE" }],
    [408, "Request timeout", { kind: "timeout", code: "UPSTREAM_TIMEOUT" }],
    [500, "The server had an error", { kind: "unavailable", code: "AI_UNAVAILABLE", message: "The AI service failed (HTTP 500); try again later" }],
    [418, "I'm a teapot", { kind: "unavailable", code: "AI_REQUEST_FAILED", message: "The AI service answered HTTP 418: I'm a teapot" }],
  ])("maps HTTP %i", async (status, message, expected) => {
    expect(await mapped({ status, json: openAiErrorBody(message, "invalid_request_error") })).toMatchObject(expected);
  });

  it("reports an unreachable server as unavailable, naming the reason", async () => {
    const closed = await startOpenAiPeer(() => ({}));
    await closed.close();
    const client = createOpenAiClient({ apiKey: "sk-test", baseURL: closed.baseURL, maxRetries: 0 });
    await expect(callOpenAi(() => client.models.list())).rejects.toMatchObject({ kind: "unavailable", code: "AI_UNREACHABLE" });
  });

  it("passes AppErrors through and hides anything else behind a generic internal error", () => {
    const appError = new AppError("validation", "VALIDATION_ERROR", "bad");
    expect(fromOpenAiError(appError)).toBe(appError);
    const unexpected = fromOpenAiError(new OpenAIError("The OPENAI_API_KEY environment variable is missing"));
    expect(unexpected).toMatchObject({ kind: "internal", code: "INTERNAL_ERROR", message: "An unexpected error occurred" });
    expect(fromOpenAiError(new TypeError("x")).cause).toBeInstanceOf(TypeError);
  });
});

describe("callOpenAi", () => {
  it("rejects with the signal's reason when the caller cancels, not with a mapped error", async () => {
    const controller = new AbortController();
    reply = () => {
      controller.abort();
      return { json: {}, delayMs: 2000 };
    };
    const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 0 });
    const call = callOpenAi(() => client.models.list({ signal: controller.signal }), controller.signal);
    const rejection = await call.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(rejection).toBe(controller.signal.reason);
    expect(rejection).toMatchObject({ name: "AbortError" });
  });

  it("does not call at all with an aborted signal", async () => {
    const call = jest.fn();
    await expect(callOpenAi(call, AbortSignal.abort())).rejects.toMatchObject({ name: "AbortError" });
    expect(call).not.toHaveBeenCalled();
  });
});
