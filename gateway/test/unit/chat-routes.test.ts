import { chat } from "@study/contracts";
import { bindUnaryHandlers, serverStream, startGrpcServer, type RunningGrpcServer, type ServerStreamContext } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { bodyParsers } from "../../src/app";
import { chatRoutes } from "../../src/routes/chat";
import { startStandInGateway, type StandInGateway } from "./route-harness";

const { CitationType, MessageRole } = chat;

const logger = createLogger("test", "silent");
const USER_ID = "user-1";
const COURSE_ID = "3f0c8a52-6a1e-4d0b-9c3e-1a2b3c4d5e6f";
const SESSION_ID = "8b7c6d5e-4f3a-4b2c-8d1e-0f9a8b7c6d5e";
const NOTE_ID = "1a2b3c4d-5e6f-4a0b-8c1d-2e3f4a5b6c7d";
const DOCUMENT_ID = "9e8d7c6b-5a4f-4e3d-9c2b-1a0f9e8d7c6b";
const at = new Date("2026-11-20T10:00:00.000Z");

const session: chat.Session = {
  id: SESSION_ID,
  userId: USER_ID,
  courseId: COURSE_ID,
  title: "Photosynthesis",
  noteIds: [NOTE_ID],
  documentIds: [],
  createdAt: at,
  updatedAt: at,
  messageCount: 2,
};
const noteCitation: chat.Citation = {
  marker: 1,
  type: CitationType.CITATION_TYPE_NOTE,
  id: NOTE_ID,
  title: "Lecture 3",
  startTime: 754.5,
  quote: "Chlorophyll absorbs light.",
};
const documentCitation: chat.Citation = {
  marker: 2,
  type: CitationType.CITATION_TYPE_DOCUMENT,
  id: DOCUMENT_ID,
  title: "Chapter 8",
  page: 4,
  quote: "The light reactions take place in the thylakoids.",
};
const question: chat.Message = {
  id: "message-q",
  role: MessageRole.MESSAGE_ROLE_USER,
  content: "What absorbs light?",
  citations: [],
  createdAt: at,
  engine: "",
};
const answer: chat.Message = {
  id: "message-a",
  role: MessageRole.MESSAGE_ROLE_ASSISTANT,
  content: "From your notes: Chlorophyll absorbs light. [1] [2]",
  citations: [noteCitation, documentCitation],
  createdAt: at,
  engine: "offline",
};

const sessionJson = {
  id: SESSION_ID,
  courseId: COURSE_ID,
  title: "Photosynthesis",
  noteIds: [NOTE_ID],
  documentIds: [],
  messageCount: 2,
  createdAt: "2026-11-20T10:00:00.000Z",
  updatedAt: "2026-11-20T10:00:00.000Z",
};
const citationsJson = [
  { type: "note", id: NOTE_ID, title: "Lecture 3", startTime: 754.5, page: null, quote: "Chlorophyll absorbs light.", marker: 1 },
  {
    type: "document",
    id: DOCUMENT_ID,
    title: "Chapter 8",
    startTime: null,
    page: 4,
    quote: "The light reactions take place in the thylakoids.",
    marker: 2,
  },
];
const questionJson = {
  id: "message-q",
  role: "user",
  content: "What absorbs light?",
  citations: [],
  engine: null,
  createdAt: "2026-11-20T10:00:00.000Z",
};
const answerJson = {
  id: "message-a",
  role: "assistant",
  content: "From your notes: Chlorophyll absorbs light. [1] [2]",
  citations: citationsJson,
  engine: "offline",
  createdAt: "2026-11-20T10:00:00.000Z",
};

/** What the stand-in received; how it answers the next question. */
const calls = new Map<string, unknown[]>();
const record = (name: string, request: unknown) => calls.set(name, [...(calls.get(name) ?? []), request]);
const callsOf = (name: string) => calls.get(name) ?? [];
type AskScript = (request: chat.AskRequest, context: ServerStreamContext<chat.AskRequest, chat.AskResponse>) => Promise<void>;
/** The whole answer: the question, two pieces of text, the citations, the stored answer. */
const fullAnswer: AskScript = async (_request, { send }) => {
  await send({ event: { $case: "question", value: question } });
  await send({ event: { $case: "token", value: "From your notes: " } });
  await send({ event: { $case: "token", value: "Chlorophyll absorbs light. [1] [2]" } });
  await send({ event: { $case: "citations", value: { citations: [noteCitation, documentCitation] } } });
  await send({ event: { $case: "answer", value: answer } });
};
let askScript: AskScript = fullAnswer;
const notFound = () => AppError.notFound("Chat session");

function startChat(): Promise<RunningGrpcServer> {
  const ownSession = (sessionId: string) => {
    if (sessionId !== SESSION_ID) throw notFound();
    return session;
  };
  return startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: chat.ChatServiceService,
        implementation: {
          ...bindUnaryHandlers(logger, chat.ChatServiceService, {
            async createSession(request) {
              record("createSession", request);
              if (request.courseId !== COURSE_ID) throw AppError.notFound("Course");
              return { session: { ...session, title: request.title ?? "Chat about Biology", messageCount: 0 } };
            },
            async listSessions(request) {
              record("listSessions", request);
              return { sessions: [session], page: { limit: request.page?.limit ?? 0, offset: request.page?.offset ?? 0, total: 3, hasMore: true } };
            },
            async getSession(request) {
              record("getSession", request);
              return { session: ownSession(request.sessionId), messages: [question, answer] };
            },
            async renameSession(request) {
              record("renameSession", request);
              return { session: { ...ownSession(request.sessionId), title: request.title } };
            },
            async deleteSession(request) {
              record("deleteSession", request);
              ownSession(request.sessionId);
              return {};
            },
          }),
          ask: serverStream<chat.AskRequest, chat.AskResponse>(logger, "Ask", async (request, context) => {
            record("ask", request);
            if (request.sessionId !== SESSION_ID) throw notFound();
            await askScript(request, context);
          }),
        },
      },
    ],
  });
}

interface ServerSentEvent {
  event: string;
  data: unknown;
}

/** The events of an event-stream body, in order (comment lines skipped). */
function parseEvents(text: string): ServerSentEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => {
      const lines = block.split("\n");
      const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
      return { event: field("event") ?? "message", data: JSON.parse(field("data") ?? "null") as unknown };
    });
}

describe("the chat routes", () => {
  let gateway: StandInGateway;
  let api: StandInGateway["api"];
  const token = "secret-session";
  const eventStream = { accept: "text/event-stream" };
  const ask = (body: unknown, headers: Record<string, string> = {}, sessionId = SESSION_ID) =>
    api("POST", `/api/chat/sessions/${sessionId}/messages`, { token, body, headers });

  beforeAll(async () => {
    gateway = await startStandInGateway(
      await startChat(),
      (clients, config) => chatRoutes(clients, logger, { answerDeadlineMs: config.CHAT_ANSWER_DEADLINE_MS }),
      { userId: USER_ID, logger, bodyParsers: bodyParsers("1mb") },
    );
    api = gateway.api;
  });
  afterAll(() => gateway.stop());
  beforeEach(() => {
    calls.clear();
    askScript = fullAnswer;
  });

  it("answers 401 UNAUTHORIZED without a session on every route, before reaching the chat service", async () => {
    const { body: document } = await api("GET", "/openapi.json");
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const guarded = operations.filter((operation) => operation !== "GET /openapi.json");
    expect(guarded.sort()).toEqual([
      "DELETE /api/chat/sessions/{id}",
      "GET /api/chat/sessions",
      "GET /api/chat/sessions/{id}",
      "PATCH /api/chat/sessions/{id}",
      "POST /api/chat/sessions",
      "POST /api/chat/sessions/{id}/messages",
    ]);
    for (const operation of guarded) {
      const [method, path] = operation.split(" ");
      const { status, body } = await api(method, path.replace("{id}", SESSION_ID), {
        body: method === "POST" || method === "PATCH" ? {} : undefined,
      });
      expect({ operation, status, code: body.code }).toEqual({ operation, status: 401, code: "UNAUTHORIZED" });
    }
    expect(calls.size).toBe(0);
  });

  it("creates a session in a course, optionally titled and limited to some notes and documents", async () => {
    const created = await api("POST", "/api/chat/sessions", { token, body: { courseId: COURSE_ID, title: "  Photosynthesis ", noteIds: [NOTE_ID] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ success: true, message: "Chat session created", data: { session: { ...sessionJson, messageCount: 0 } } });
    expect(callsOf("createSession")).toEqual([
      { userId: USER_ID, courseId: COURSE_ID, title: "Photosynthesis", noteIds: [NOTE_ID], documentIds: [] },
    ]);

    const untitled = await api("POST", "/api/chat/sessions", { token, body: { courseId: COURSE_ID } });
    expect(untitled.body.data.session.title).toBe("Chat about Biology");
    expect(callsOf("createSession")[1]).toEqual({ userId: USER_ID, courseId: COURSE_ID, noteIds: [], documentIds: [] });

    // Another user's (or no) course: the service's NOT_FOUND.
    const foreign = await api("POST", "/api/chat/sessions", { token, body: { courseId: DOCUMENT_ID } });
    expect(foreign).toMatchObject({ status: 404, body: { success: false, code: "NOT_FOUND", error: "Course not found" } });
  });

  it("refuses malformed input with 400 VALIDATION_ERROR naming the field, without calling the service", async () => {
    const refusals: [string, string, unknown, string, string][] = [
      ["POST", "/api/chat/sessions", {}, "courseId", "is required"],
      ["POST", "/api/chat/sessions", { courseId: "course-1" }, "courseId", "must be a UUID"],
      ["POST", "/api/chat/sessions", { courseId: COURSE_ID, title: "" }, "title", "must not be empty"],
      ["POST", "/api/chat/sessions", { courseId: COURSE_ID, title: "x".repeat(201) }, "title", "must be at most 200 characters"],
      ["POST", "/api/chat/sessions", { courseId: COURSE_ID, noteIds: ["note-1"] }, "noteIds.0", "must be a UUID"],
      ["POST", "/api/chat/sessions", { courseId: COURSE_ID, documentIds: DOCUMENT_ID }, "documentIds", "must be an array"],
      ["POST", "/api/chat/sessions", { courseId: COURSE_ID, scope: "all" }, "scope", "is not a known field"],
      ["GET", "/api/chat/sessions", undefined, "courseId", "is required"],
      ["GET", "/api/chat/sessions?courseId=nope", undefined, "courseId", "must be a UUID"],
      ["GET", `/api/chat/sessions?courseId=${COURSE_ID}&courseId=${COURSE_ID}`, undefined, "courseId", "must be given once"],
      ["GET", `/api/chat/sessions?courseId=${COURSE_ID}&limit=101`, undefined, "limit", "must be at most 100"],
      ["GET", `/api/chat/sessions?courseId=${COURSE_ID}&offset=-1`, undefined, "offset", "must be at least 0"],
      ["GET", "/api/chat/sessions/not-a-session", undefined, "id", "must be a UUID"],
      ["PATCH", `/api/chat/sessions/${SESSION_ID}`, {}, "title", "is required"],
      ["PATCH", `/api/chat/sessions/${SESSION_ID}`, { title: "   " }, "title", "must not be empty"],
      ["DELETE", "/api/chat/sessions/42", undefined, "id", "must be a UUID"],
      ["POST", `/api/chat/sessions/${SESSION_ID}/messages`, {}, "question", "is required"],
      ["POST", `/api/chat/sessions/${SESSION_ID}/messages`, { question: " \n " }, "question", "must not be empty"],
      ["POST", `/api/chat/sessions/${SESSION_ID}/messages`, { question: "why?".repeat(501) }, "question", "must be at most 2000 characters"],
      ["POST", "/api/chat/sessions/x/messages", { question: "Why?" }, "id", "must be a UUID"],
    ];
    for (const [method, path, body, field, message] of refusals) {
      const response = await api(method, path, { token, body });
      expect({ path, body, status: response.status, code: response.body.code, details: response.body.details }).toEqual({
        path,
        body,
        status: 400,
        code: "VALIDATION_ERROR",
        details: expect.arrayContaining([{ field, message }]),
      });
    }
    // Also when the client asks for an event stream: the refusal is the envelope, not a stream.
    const streamed = await ask({ question: "" }, eventStream);
    expect(streamed.status).toBe(400);
    expect(streamed.headers.get("content-type")).toMatch(/^application\/json/);
    expect(calls.size).toBe(0);
  });

  it("lists the caller's sessions of a course a page at a time, and gets, renames and deletes one", async () => {
    const list = await api("GET", `/api/chat/sessions?courseId=${COURSE_ID}&limit=1&offset=1`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      success: true,
      message: "Chat sessions retrieved",
      data: { sessions: [sessionJson], pagination: { limit: 1, offset: 1, total: 3, hasMore: true } },
    });
    expect(callsOf("listSessions")).toEqual([{ userId: USER_ID, courseId: COURSE_ID, page: { limit: 1, offset: 1 } }]);
    expect(callsOf("listSessions").length).toBe(1);
    await api("GET", `/api/chat/sessions?courseId=${COURSE_ID}`, { token });
    expect(callsOf("listSessions")[1]).toMatchObject({ page: { limit: 20, offset: 0 } });

    const got = await api("GET", `/api/chat/sessions/${SESSION_ID}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      success: true,
      message: "Chat session retrieved",
      data: { session: sessionJson, messages: [questionJson, answerJson] },
    });
    expect(callsOf("getSession")).toEqual([{ userId: USER_ID, sessionId: SESSION_ID }]);

    const renamed = await api("PATCH", `/api/chat/sessions/${SESSION_ID}`, { token, body: { title: " Light " } });
    expect(renamed).toMatchObject({
      status: 200,
      body: { success: true, message: "Chat session renamed", data: { session: { ...sessionJson, title: "Light" } } },
    });
    expect(callsOf("renameSession")).toEqual([{ userId: USER_ID, sessionId: SESSION_ID, title: "Light" }]);

    const deleted = await api("DELETE", `/api/chat/sessions/${SESSION_ID}`, { token });
    expect(deleted).toMatchObject({ status: 200, body: { success: true, message: "Chat session deleted" } });
    expect(callsOf("deleteSession")).toEqual([{ userId: USER_ID, sessionId: SESSION_ID }]);
  });

  it("answers 404 NOT_FOUND for a session that is not the caller's, whatever the operation", async () => {
    const other = "0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";
    for (const [method, body] of [
      ["GET", undefined],
      ["PATCH", { title: "Mine now" }],
      ["DELETE", undefined],
    ] as const) {
      const response = await api(method, `/api/chat/sessions/${other}`, { token, body });
      expect({ method, status: response.status, body: response.body }).toEqual({
        method,
        status: 404,
        body: { success: false, error: "Chat session not found", code: "NOT_FOUND" },
      });
    }
    for (const headers of [{}, eventStream]) {
      const response = await ask({ question: "Show me their notes" }, headers, other);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: "Chat session not found", code: "NOT_FOUND" });
    }
  });

  it("answers a question as JSON (201, the stored question and answer) when the client does not ask for a stream", async () => {
    for (const headers of [{}, { accept: "application/json" }, { accept: "application/json, text/event-stream;q=0.5" }]) {
      calls.clear();
      const response = await ask({ question: "  What absorbs light? " }, headers);
      expect(response.status).toBe(201);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.body).toEqual({ success: true, message: "Question answered", data: { question: questionJson, answer: answerJson } });
      expect(callsOf("ask")).toEqual([{ userId: USER_ID, sessionId: SESSION_ID, question: "What absorbs light?" }]);
    }
  });

  it("streams the answer as server-sent events when the client prefers them: question, tokens, citations, done", async () => {
    for (const accept of ["text/event-stream", "text/event-stream, application/json;q=0.9"]) {
      const response = await ask({ question: "What absorbs light?" }, { accept });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
      expect(parseEvents(response.body as string)).toEqual([
        { event: "question", data: { message: questionJson } },
        { event: "token", data: { text: "From your notes: " } },
        { event: "token", data: { text: "Chlorophyll absorbs light. [1] [2]" } },
        { event: "citations", data: { citations: citationsJson } },
        { event: "done", data: { message: answerJson, messageId: "message-a" } },
      ]);
    }
  });

  it("answers 429 RATE_LIMITED in the envelope, with Retry-After, when the hourly limit refuses the question", async () => {
    askScript = () =>
      Promise.reject(
        new AppError("rate_limited", "RATE_LIMITED", "You can ask 50 questions per hour; try again in 1200 s", {
          action: "RETRY_LATER",
          details: [{ field: "retryAfterSeconds", message: "1200" }],
        }),
      );
    for (const headers of [{}, eventStream]) {
      const response = await ask({ question: "One more?" }, headers);
      expect(response.status).toBe(429);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("retry-after")).toBe("1200");
      expect(response.body).toEqual({
        success: false,
        error: "You can ask 50 questions per hour; try again in 1200 s",
        code: "RATE_LIMITED",
        details: [{ field: "retryAfterSeconds", message: "1200" }],
        action: "RETRY_LATER",
      });
    }
  });

  it("answers a refusal before the first event as an ordinary error (status and envelope), even to a stream client", async () => {
    askScript = () => Promise.reject(AppError.validation("Invalid question", [{ field: "question", message: "is too long" }]));
    const refused = await ask({ question: "Why?" }, eventStream);
    expect(refused).toMatchObject({
      status: 400,
      body: { success: false, code: "VALIDATION_ERROR", details: [{ field: "question", message: "is too long" }] },
    });
    expect(refused.headers.get("retry-after")).toBeNull();
  });

  it("ends a stream that fails after it began with an `error` event carrying the envelope", async () => {
    askScript = async (_request, { send }) => {
      await send({ event: { $case: "question", value: question } });
      await send({ event: { $case: "token", value: "From your" } });
      throw new AppError("upstream", "AI_UNAVAILABLE", "The answer engine failed");
    };
    const response = await ask({ question: "What absorbs light?" }, eventStream);
    expect(response.status).toBe(200);
    expect(parseEvents(response.body as string)).toEqual([
      { event: "question", data: { message: questionJson } },
      { event: "token", data: { text: "From your" } },
      { event: "error", data: { success: false, error: "The answer engine failed", code: "AI_UNAVAILABLE" } },
    ]);

    // The same failure without a stream: the JSON client gets it as the answer's status and envelope.
    const json = await ask({ question: "What absorbs light?" });
    expect(json).toMatchObject({ status: 502, body: { success: false, code: "AI_UNAVAILABLE" } });

    // A stream that stops without the stored answer is broken: an internal error, its details kept to the log.
    askScript = async (_request, { send }) => {
      await send({ event: { $case: "question", value: question } });
    };
    const cut = await ask({ question: "What absorbs light?" }, eventStream);
    expect(parseEvents(cut.body as string)).toEqual([
      { event: "question", data: { message: questionJson } },
      { event: "error", data: { success: false, error: "An unexpected error occurred", code: "INTERNAL_ERROR" } },
    ]);
  });

  it("cancels the answer when the client goes away mid-stream", async () => {
    let cancelled!: () => void;
    const answerCancelled = new Promise<void>((resolve) => (cancelled = resolve));
    askScript = async (_request, { send, signal }) => {
      await send({ event: { $case: "question", value: question } });
      await send({ event: { $case: "token", value: "From your" } });
      // An engine still writing: it stops only when the call is cancelled.
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      cancelled();
    };
    const client = new AbortController();
    const response = await fetch(`${gateway.url}/api/chat/sessions/${SESSION_ID}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...eventStream },
      body: JSON.stringify({ question: "What absorbs light?" }),
      signal: client.signal,
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes("event: token")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${received}`);
      received += decoder.decode(value, { stream: true });
    }
    client.abort();
    await answerCancelled;
  });

  it("documents the chat operations in OpenAPI, the answer as JSON and as an event stream", async () => {
    const { body: document } = await api("GET", "/openapi.json");
    const sessions = document.paths["/api/chat/sessions"];
    expect(sessions.post.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      required: ["courseId"],
      properties: { courseId: { type: "string", format: "uuid" }, title: { minLength: 1, maxLength: 200 }, noteIds: { type: "array" } },
      additionalProperties: false,
    });
    expect(Object.keys(sessions.post.responses).sort()).toEqual(["201", "400", "401", "404", "415", "500"]);
    expect(sessions.get.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`)).toEqual([
      "query:courseId:true",
      "query:limit:false",
      "query:offset:false",
    ]);
    expect(Object.keys(document.paths["/api/chat/sessions/{id}"]).sort()).toEqual(["delete", "get", "patch"]);
    const askOperation = document.paths["/api/chat/sessions/{id}/messages"].post;
    expect(askOperation.requestBody.content["application/json"].schema).toMatchObject({
      required: ["question"],
      properties: { question: { type: "string", minLength: 1, maxLength: 2000 } },
    });
    expect(Object.keys(askOperation.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(askOperation.responses["201"].content["application/json"].schema.properties.data.properties.answer).toEqual({
      $ref: "#/components/schemas/ChatMessage",
    });
    expect(askOperation.responses["429"].description).toMatch(/RATE_LIMITED/);
    expect(askOperation.description).toMatch(/`question`.*`token`.*`citations`.*`done`.*`error`/s);
    expect(document.components.schemas.ChatCitation.properties).toMatchObject({
      type: { enum: ["note", "document"] },
      startTime: { type: ["number", "null"] },
    });
  });
});
