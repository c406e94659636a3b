import { callOpenAi, createOpenAiClient } from "@study/ai";
import { openAiErrorBody, startOpenAiPeer, type OpenAiPeer, type PeerReply } from "./support/openai-peer";

let peer: OpenAiPeer;
let reply: (index: number) => PeerReply;

beforeAll(async () => {
  peer = await startOpenAiPeer((_request, index) => reply(index));
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  peer.requests.length = 0;
});

const models = { object: "list", data: [{ id: "gpt-4o-mini", object: "model", created: 1, owned_by: "openai" }] };

describe("createOpenAiClient", () => {
  it("sends requests to the configured base URL with the API key", async () => {
    reply = () => ({ json: models });
    const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL });
    const page = await client.models.list();
    expect(page.data.map((model) => model.id)).toEqual(["gpt-4o-mini"]);
    expect(peer.requests).toHaveLength(1);
    expect(peer.requests[0]).toMatchObject({ method: "GET", path: "/v1/models", headers: { authorization: "Bearer sk-test" } });
  });

  it("retries a failing server up to maxRetries times", async () => {
    // retry-after-ms keeps the SDK's backoff short.
    reply = (index) =>
      index < 2 ? { status: 503, headers: { "retry-after-ms": "10" }, json: openAiErrorBody("overloaded", "server_error") } : { json: models };
    const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 2 });
    await expect(client.models.list()).resolves.toBeDefined();
    expect(peer.requests).toHaveLength(3);
  });

  it("does not retry with maxRetries 0", async () => {
    reply = () => ({ status: 503, headers: { "retry-after-ms": "10" }, json: openAiErrorBody("overloaded", "server_error") });
    const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 0 });
    await expect(callOpenAi(() => client.models.list())).rejects.toMatchObject({ kind: "unavailable", code: "AI_UNAVAILABLE" });
    expect(peer.requests).toHaveLength(1);
  });

  it("gives up after timeoutMs, reported as an upstream timeout", async () => {
    reply = () => ({ json: models, delayMs: 2000 });
    const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, timeoutMs: 100, maxRetries: 0 });
    const started = Date.now();
    await expect(callOpenAi(() => client.models.list())).rejects.toMatchObject({
      kind: "timeout",
      code: "UPSTREAM_TIMEOUT",
      message: "The AI service did not answer in time",
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
