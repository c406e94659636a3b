import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStudyClient, data, StudyApiError, type ServerEvent } from "../src/index.js";

/**
 * The SDK against a local HTTP server that answers as the gateway does (envelopes, server-sent events, multipart):
 * what fetch alone does not give — typed errors, event streams, upload progress, sessions — checked on the wire.
 * The web app's browser tests (clients/web/test/browser) use the same SDK against the real stack.
 */
type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const routes = new Map<string, Handler>();
const seen: { method?: string; url?: string; authorization?: string; contentType?: string; contentLength?: string; body: Buffer }[] = [];
let server: Server;
let baseUrl: string;

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({
        method: req.method,
        url: req.url,
        authorization: req.headers.authorization,
        contentType: req.headers["content-type"],
        contentLength: req.headers["content-length"],
        body,
      });
      const handler = routes.get(`${req.method} ${req.url?.split("?")[0]}`);
      if (handler) handler(req, res, body);
      else json(res, 404, { success: false, error: "Not found.", code: "NOT_FOUND" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const lastRequest = () => seen[seen.length - 1];

describe("calls and their answers", () => {
  it("returns the envelope's data, typed by the OpenAPI document", async () => {
    routes.set("GET /api/courses", (_req, res) =>
      json(res, 200, { success: true, data: { courses: [{ id: "c1", name: "Biology" }], pagination: { total: 1 } }, message: "ok" }),
    );
    const client = createStudyClient({ baseUrl });
    const { courses } = await data(client.api.GET("/api/courses", { params: { query: { limit: 5 } } }));
    expect(courses.map((course) => course.name)).toEqual(["Biology"]);
    expect(lastRequest().url).toBe("/api/courses?limit=5");
  });

  it("throws the API's refusal as StudyApiError: code, sentence, field details and action", async () => {
    routes.set("POST /api/courses", (_req, res) =>
      json(res, 400, { success: false, error: "Invalid input.", code: "VALIDATION_ERROR", details: [{ field: "name", message: "Required" }] }),
    );
    routes.set("POST /api/referral/trial-start", (_req, res) =>
      json(res, 403, { success: false, error: "Verify your e-mail first.", code: "EMAIL_NOT_VERIFIED", action: "VERIFY_EMAIL" }),
    );
    const client = createStudyClient({ baseUrl });
    const refused = await data(client.api.POST("/api/courses", { body: { name: "" } })).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StudyApiError);
    expect(refused).toMatchObject({ status: 400, code: "VALIDATION_ERROR", message: "Invalid input." });
    expect((refused as StudyApiError).fieldProblem("name")).toBe("Required");
    const unverified = await data(client.api.POST("/api/referral/trial-start")).catch((error: unknown) => error);
    expect(unverified).toMatchObject({ status: 403, code: "EMAIL_NOT_VERIFIED", action: "VERIFY_EMAIL" });
  });

  it("names failures that carry no envelope: a proxy's page, an unreachable server", async () => {
    routes.set("GET /api/dashboard", (_req, res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    });
    const client = createStudyClient({ baseUrl });
    await expect(data(client.api.GET("/api/dashboard"))).rejects.toMatchObject({ status: 502, code: "HTTP_502" });
    const nowhere = createStudyClient({ baseUrl: "http://127.0.0.1:1" });
    await expect(data(nowhere.api.GET("/api/dashboard"))).rejects.toMatchObject({ status: 0, code: "NETWORK_ERROR" });
  });

  it("sends a Bearer session from a token or a function, and none for cookie sessions", async () => {
    routes.set("GET /api/auth/session", (_req, res) => json(res, 401, { success: false, error: "Not signed in.", code: "UNAUTHORIZED" }));
    let current = "first-token";
    await data(createStudyClient({ baseUrl, token: () => current }).api.GET("/api/auth/session")).catch(() => "refused");
    expect(lastRequest().authorization).toBe("Bearer first-token");
    current = "second-token";
    await data(createStudyClient({ baseUrl, token: () => current }).api.GET("/api/auth/session")).catch(() => "refused");
    expect(lastRequest().authorization).toBe("Bearer second-token");
    await data(createStudyClient({ baseUrl }).api.GET("/api/auth/session")).catch(() => "refused");
    expect(lastRequest().authorization).toBeUndefined();
  });
});

describe("server-sent events", () => {
  const progress = (status: string, value: number) => `event: progress\ndata: ${JSON.stringify({ status, progress: value, stage: status })}\n\n`;

  it("arrive as an async iterable of named events with JSON data, until the stream ends", async () => {
    routes.set("GET /api/jobs/j1/events", (req, res) => {
      expect(req.headers.accept).toBe("text/event-stream");
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(": connected\n\n");
      res.write(progress("DOWNLOADING", 10));
      // One event split across two writes is still one event.
      const split = progress("TRANSCRIBING", 60);
      res.write(split.slice(0, 20));
      setImmediate(() => {
        res.write(split.slice(20));
        res.end(progress("COMPLETED", 100));
      });
    });
    const events: ServerEvent[] = [];
    for await (const event of createStudyClient({ baseUrl, token: "t" }).events("/api/jobs/j1/events")) events.push(event);
    expect(events).toEqual([
      { event: "progress", data: { status: "DOWNLOADING", progress: 10, stage: "DOWNLOADING" }, id: undefined },
      { event: "progress", data: { status: "TRANSCRIBING", progress: 60, stage: "TRANSCRIBING" }, id: undefined },
      { event: "progress", data: { status: "COMPLETED", progress: 100, stage: "COMPLETED" }, id: undefined },
    ]);
    expect(lastRequest().authorization).toBe("Bearer t");
  });

  it("stop when the caller aborts, and a refusal throws before the first event", async () => {
    let closed!: () => void;
    const streamClosed = new Promise<void>((resolve) => (closed = resolve));
    routes.set("GET /api/jobs/j2/events", (req, res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(progress("PENDING", 0));
      req.socket.on("close", closed);
    });
    const controller = new AbortController();
    const received: string[] = [];
    for await (const event of createStudyClient({ baseUrl }).events("/api/jobs/j2/events", { signal: controller.signal })) {
      received.push(event.event);
      controller.abort();
    }
    expect(received).toEqual(["progress"]);
    await streamClosed;

    const refused = createStudyClient({ baseUrl }).events("/api/jobs/unknown/events");
    await expect(refused.next()).rejects.toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("answer a POST too (a chat question streamed back)", async () => {
    routes.set("POST /api/chat/sessions/s1/messages", (_req, res, body) => {
      const { content } = JSON.parse(body.toString()) as { content: string };
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write(`event: token\ndata: ${JSON.stringify({ text: `You asked: ${content}` })}\n\n`);
      res.end("event: done\ndata: {}\n\n");
    });
    const events: string[] = [];
    for await (const event of createStudyClient({ baseUrl }).postEvents("/api/chat/sessions/s1/messages", { content: "What is ATP?" })) {
      events.push(`${event.event}:${JSON.stringify(event.data)}`);
    }
    expect(events).toEqual(['token:{"text":"You asked: What is ATP?"}', "done:{}"]);
    expect(lastRequest().contentType).toBe("application/json");
  });
});

describe("multipart uploads", () => {
  it("report progress up to the whole request, and return the envelope's data", async () => {
    routes.set("POST /api/notes/upload/audio", (_req, res) =>
      json(res, 201, { success: true, data: { note: { id: "n1" }, importJob: { id: "j1" } }, message: "Uploading" }),
    );
    const audio = new Uint8Array(3 * 1024 * 1024).map((_, index) => index % 251);
    const form = new FormData();
    form.set("courseId", "c1");
    form.set("file", new Blob([audio], { type: "audio/wav" }), "lecture.wav");
    const progress: { loaded: number; total: number }[] = [];
    const answer = await createStudyClient({ baseUrl, token: "t" }).upload<{ note: { id: string } }>("/api/notes/upload/audio", form, {
      onProgress: (step) => progress.push(step),
    });
    expect(answer.note.id).toBe("n1");
    const request = lastRequest();
    expect(request.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(Number(request.contentLength)).toBe(request.body.length);
    expect(request.body.includes(Buffer.from('filename="lecture.wav"'))).toBe(true);
    expect(request.authorization).toBe("Bearer t");
    expect(progress.length).toBeGreaterThan(1);
    expect(progress[progress.length - 1]).toEqual({ loaded: request.body.length, total: request.body.length });
    expect(progress.every((step, index) => index === 0 || step.loaded >= progress[index - 1].loaded)).toBe(true);
  });

  it("throw the API's refusal (a file too large)", async () => {
    routes.set("POST /api/documents/upload", (_req, res) =>
      json(res, 413, { success: false, error: "The file is larger than 150 MB.", code: "FILE_TOO_LARGE" }),
    );
    const form = new FormData();
    form.set("file", new Blob(["x"]), "big.pdf");
    await expect(createStudyClient({ baseUrl }).upload("/api/documents/upload", form)).rejects.toMatchObject({ status: 413, code: "FILE_TOO_LARGE" });
  });
});
