import { createOpenAiClient } from "@study/ai";
import { openAiErrorBody, startOpenAiPeer, type OpenAiPeer, type PeerReply } from "../../../../../libs/ai/test/support/openai-peer";
import { OpenAiSummarizer, summarySystemPrompt } from "../../../src/adapters/summary/openai-summarizer";

const NOTES = "Photosynthesis converts light energy into chemical energy. Chlorophyll absorbs the light. Glucose stores the energy.";
let peer: OpenAiPeer;
let reply: () => PeerReply;

beforeAll(async () => {
  peer = await startOpenAiPeer(() => reply());
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  peer.requests.length = 0;
});

function summarizer(model = "gpt-4o-mini") {
  return new OpenAiSummarizer({ client: createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 0 }), model });
}

/** A chat completion answering `content`. */
function completion(content: unknown, finishReason = "stop"): PeerReply {
  return {
    json: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_760_000_000,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: finishReason, logprobs: null }],
      usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
    },
  };
}

describe("OpenAiSummarizer", () => {
  it("asks the configured model for a study summary of the text and returns its answer", async () => {
    reply = () => completion("  Photosynthesis turns light into chemical energy, stored as glucose.\n");
    const summary = await summarizer("llama-3.1-8b-instruct").summarize(NOTES, { maxSentences: 3 });

    expect(summary).toBe("Photosynthesis turns light into chemical energy, stored as glucose.");
    expect(peer.requests).toHaveLength(1);
    const [request] = peer.requests;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.json()).toEqual({
      model: "llama-3.1-8b-instruct",
      temperature: 0.2,
      messages: [
        { role: "system", content: summarySystemPrompt(3) },
        { role: "user", content: `Summarise this text:\n\n${NOTES}` },
      ],
    });
    expect(summarySystemPrompt(3)).toContain("concise study summary of at most 3 sentences");
  });

  it("trims an answer to the sentences asked for and drops a sentence cut off by the length limit", async () => {
    reply = () => completion("One. Two. Three. Four.");
    expect(await summarizer().summarize(NOTES, { maxSentences: 2 })).toBe("One. Two.");
    reply = () => completion("Light is absorbed. Glucose is made from carbon diox", "length");
    expect(await summarizer().summarize(NOTES)).toBe("Light is absorbed.");
  });

  it("does not call the model for an empty text", async () => {
    expect(await summarizer().summarize(" \n ")).toBe("");
    expect(peer.requests).toHaveLength(0);
  });

  it.each([
    ["an empty answer", completion("   "), { kind: "unavailable", code: "AI_EMPTY_RESPONSE", message: "The AI service returned an empty summary" }],
    ["a null answer", completion(null), { kind: "unavailable", code: "AI_EMPTY_RESPONSE" }],
    ["JSON without choices", { json: { id: "x", object: "chat.completion" } }, { kind: "unavailable", code: "AI_MALFORMED_RESPONSE" }],
    ["a page that is not JSON", { text: "<html>Bad gateway</html>" }, { kind: "unavailable", code: "AI_MALFORMED_RESPONSE" }],
    ["a content that is not text", completion({ parts: ["a"] }), { kind: "unavailable", code: "AI_MALFORMED_RESPONSE" }],
    ["a content-filter stop", completion("", "content_filter"), { kind: "precondition", code: "AI_REFUSED" }],
  ])("raises a clear error for %s", async (_case, answer, expected) => {
    reply = () => answer;
    await expect(summarizer().summarize(NOTES)).rejects.toMatchObject({ name: "AppError", ...expected });
  });

  it("maps API failures to AppErrors", async () => {
    reply = () => ({ status: 401, json: openAiErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key") });
    await expect(summarizer().summarize(NOTES)).rejects.toMatchObject({ kind: "unavailable", code: "AI_AUTH_FAILED" });
    reply = () => ({ status: 404, json: openAiErrorBody("The model `gpt-9` does not exist", "invalid_request_error", "model_not_found") });
    await expect(summarizer("gpt-9").summarize(NOTES)).rejects.toMatchObject({
      kind: "unavailable",
      code: "AI_MODEL_NOT_FOUND",
      message: "The AI service does not offer the requested model or endpoint (HTTP 404): The model `gpt-9` does not exist",
    });
  });

  it("rejects with an AbortError when cancelled while the model is writing", async () => {
    const controller = new AbortController();
    reply = () => {
      controller.abort();
      return { ...completion("late"), delayMs: 2000 };
    };
    await expect(summarizer().summarize(NOTES, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });
});
