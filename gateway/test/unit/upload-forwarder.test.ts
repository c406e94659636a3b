import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger, verifyInternalRequest } from "@study/platform";
import express from "express";
import { errorHandler } from "../../src/http/errors";
import { createUploadForwarder, type UploadForwarderOptions } from "../../src/http/upload-forwarder";

/**
 * The forwarder shared by media's and documents' upload routes, against a stand-in upload endpoint. Its timeouts,
 * early 413 and interrupted uploads are covered end to end (gateway/test/e2e/upload-timeouts.test.ts, imports.test.ts).
 */
const SECRET = "f".repeat(32);
const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe("the upload forwarder", () => {
  const received: { path?: string; userId: string | null; headers: Record<string, unknown>; body: string }[] = [];
  let answer = "{}";
  const endpoint = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      received.push({
        path: request.url,
        userId: verifyInternalRequest(SECRET, request.headers, { method: request.method ?? "", path: request.url ?? "" }),
        headers: request.headers,
        body,
      });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(answer);
    });
  });
  let endpointUrl: string;
  const gateways: Server[] = [];

  /** A gateway with one upload route forwarding to `/uploads/things`, signed in as user-7. */
  async function gateway(options: Partial<UploadForwarderOptions>) {
    const forward = createUploadForwarder({ targetUrl: endpointUrl, secret: SECRET, idleTimeoutMs: 5_000, requestTimeoutMs: 10_000, ...options });
    const app = express();
    app.post("/upload", (req, res, next) => {
      forward(req, res, "/uploads/things", "user-7").then((forwarded) => res.status(201).json(forwarded), next);
    });
    app.use(errorHandler(createLogger("test", "silent")));
    const server = createServer(app);
    gateways.push(server);
    return listen(server);
  }

  beforeAll(async () => {
    endpointUrl = await listen(endpoint);
  });
  afterAll(async () => {
    await Promise.all(gateways.map(close));
    await close(endpoint);
  });
  beforeEach(() => {
    received.length = 0;
  });

  it("streams the body to the path, signed for the caller, without the client's credentials or forged internal headers", async () => {
    answer = JSON.stringify({ thing: { id: "t1" } });
    const url = await gateway({});
    const response = await fetch(`${url}/upload`, {
      method: "POST",
      headers: { authorization: "Bearer session", cookie: "session_token=x", "x-study-user-id": "someone-else", "content-type": "text/plain" },
      body: "file bytes",
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ status: 200, body: { thing: { id: "t1" } } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ path: "/uploads/things", userId: "user-7", body: "file bytes" });
    expect(received[0].headers).not.toHaveProperty("authorization");
    expect(received[0].headers).not.toHaveProperty("cookie");
  });

  it("turns the endpoint's refusal into its AppError, in the API's envelope", async () => {
    answer = JSON.stringify({ error: { kind: "too_large", code: "FILE_TOO_LARGE", message: "The file is over 150 MB", details: [] } });
    const url = await gateway({});
    const response = await fetch(`${url}/upload`, { method: "POST", body: "file bytes" });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ success: false, error: "The file is over 150 MB", code: "FILE_TOO_LARGE" });
  });

  it("refuses an answer over its size cap as an internal failure instead of reading a truncated one", async () => {
    answer = JSON.stringify({ thing: { text: "x".repeat(200) } });
    const url = await gateway({ maxAnswerBytes: 100 });
    const response = await fetch(`${url}/upload`, { method: "POST", body: "file bytes" });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: "INTERNAL_ERROR" });
  });

  it("answers 503 when the endpoint is not configured, and when it is not reachable", async () => {
    const unconfigured = await gateway({ targetUrl: undefined });
    const notConfigured = await fetch(`${unconfigured}/upload`, { method: "POST", body: "file bytes" });
    expect([notConfigured.status, ((await notConfigured.json()) as { code: string }).code]).toEqual([503, "SERVICE_UNAVAILABLE"]);

    const closed = createServer();
    const closedUrl = await listen(closed);
    await close(closed);
    const unreachable = await gateway({ targetUrl: closedUrl });
    const refused = await fetch(`${unreachable}/upload`, { method: "POST", body: "file bytes" });
    expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
    expect(received).toEqual([]);
  });
});
