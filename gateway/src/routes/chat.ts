import { traceMetadata } from "@study/grpc";
import { chat as api } from "@study/contracts";
import { AppError, isAppError, required, type Logger } from "@study/platform";
import type { Request } from "express";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { errorBody, sendData, sendMessage } from "../http/envelope";
import { intParam, MAX_INT32, singleParam } from "../http/query";
import { openEventStream, serverStreamReader } from "../http/sse";
import { paginationJson, paginationSchema, restEnum } from "./shared/mappers";

const citationType = restEnum(api.CitationType, "CITATION_TYPE", "lower");
const messageRole = restEnum(api.MessageRole, "MESSAGE_ROLE", "lower");

const uuid = z.uuid();
const title = z.string().trim().min(1, "must not be empty").max(200);
/** A session is limited to at most this many notes and documents each (its scope); none: the whole course. */
const MAX_SCOPE = 100;

const createBody = z.strictObject({
  courseId: uuid.describe("The course the session asks about"),
  title: title.optional().describe("Default: named after the course, then after the first question"),
  noteIds: z.array(uuid).max(MAX_SCOPE).default([]).describe("Limit the session to these notes (with documentIds; both empty: the whole course)"),
  documentIds: z.array(uuid).max(MAX_SCOPE).default([]).describe("Limit the session to these documents"),
});
const renameBody = z.strictObject({ title });
const askBody = z.strictObject({ question: z.string().trim().min(1, "must not be empty").max(2000) });
const listQuery = z.object({
  courseId: singleParam().pipe(uuid).describe("Required: the sessions' course"),
  limit: intParam(1, 100, 20),
  offset: intParam(0, MAX_INT32, 0),
});
// A malformed id is refused here (400) rather than sent on: the chat service keys sessions by UUID.
const sessionParams = z.object({ id: uuid.describe("The session's id") });

export const chatSessionSchema = z
  .object({
    id: z.string(),
    courseId: z.string(),
    title: z.string(),
    noteIds: z.array(z.string()),
    documentIds: z.array(z.string()),
    messageCount: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "ChatSession" });
export const citationSchema = z
  .object({
    type: z.enum(citationType.names),
    id: z.string().describe("The note's or document's id"),
    title: z.string(),
    startTime: z.number().nullable().describe("Seconds into the lecture recording (a transcript segment), else null"),
    page: z.number().int().nullable().describe("The document's page, else null"),
    quote: z.string().describe("The passage's words the answer rests on"),
    marker: z.number().int().describe("The number the answer cites it by ([n])"),
  })
  .meta({ id: "ChatCitation" });
export const chatMessageSchema = z
  .object({
    id: z.string(),
    role: z.enum(messageRole.names),
    content: z.string(),
    citations: z.array(citationSchema),
    engine: z.string().nullable().describe("Which engine wrote an answer (offline, openai); null for a question"),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "ChatMessage" });

export function chatSessionJson(session: api.Session) {
  return {
    id: session.id,
    courseId: session.courseId,
    title: session.title,
    noteIds: session.noteIds,
    documentIds: session.documentIds,
    messageCount: session.messageCount,
    createdAt: required(session.createdAt, "Session.createdAt"),
    updatedAt: required(session.updatedAt, "Session.updatedAt"),
  };
}

export function citationJson(citation: api.Citation) {
  return {
    type: citationType.toRest(citation.type),
    id: citation.id,
    title: citation.title,
    startTime: citation.startTime ?? null,
    page: citation.page ?? null,
    quote: citation.quote,
    marker: citation.marker,
  };
}

export function chatMessageJson(message: api.Message) {
  const role = messageRole.toRest(message.role);
  return {
    id: message.id,
    role,
    content: message.content,
    citations: message.citations.map(citationJson),
    engine: role === "user" ? null : message.engine || null,
    createdAt: required(message.createdAt, "Message.createdAt"),
  };
}

/** The SSE event of one message of the Ask stream: `question`, `token`, `citations`, then `done`. */
export function askEvent(message: api.AskResponse): { event: "question" | "token" | "citations" | "done"; data: unknown } {
  const event = required(message.event, "event in Ask reply");
  switch (event.$case) {
    case "question":
      return { event: "question", data: { message: chatMessageJson(event.value) } };
    case "token":
      return { event: "token", data: { text: event.value } };
    case "citations":
      return { event: "citations", data: { citations: event.value.citations.map(citationJson) } };
    case "answer":
      return { event: "done", data: { message: chatMessageJson(event.value), messageId: event.value.id } };
  }
}

/** Accept decides: server-sent events only for a client that prefers them (no Accept, or `*\/*`: JSON). */
const wantsEventStream = (req: Request) => req.accepts(["application/json", "text/event-stream"]) === "text/event-stream";

const notFound = { description: "No such chat session of the caller (NOT_FOUND)", schema: errorEnvelope };
const tag = "Chat";

export interface ChatRouteOptions {
  /** Deadline of a whole answer (the Ask stream), from the question to the stored answer. */
  answerDeadlineMs: number;
}

export function chatRoutes(clients: ServiceClients, logger: Logger, options: ChatRouteOptions): RouteSpec[] {
  return [
    route({
      method: "post",
      path: "/api/chat/sessions",
      tag,
      summary: "Start a chat session about one of the caller's courses (optionally limited to some notes and documents)",
      auth: true,
      body: createBody,
      responses: {
        201: { description: "The new session", schema: dataEnvelope(z.object({ session: chatSessionSchema })) },
        404: { description: "No such course, note or document of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, body, res }) {
        const { session } = await clients.chat.createSession({
          userId,
          courseId: body.courseId,
          title: body.title,
          noteIds: body.noteIds,
          documentIds: body.documentIds,
        });
        sendData(res, 201, { session: chatSessionJson(required(session, "session in CreateSession reply")) }, "Chat session created");
      },
    }),
    route({
      method: "get",
      path: "/api/chat/sessions",
      tag,
      summary: "List the caller's chat sessions of a course, newest first",
      auth: true,
      query: listQuery,
      responses: {
        200: {
          description: "A page of sessions",
          schema: dataEnvelope(z.object({ sessions: z.array(chatSessionSchema), pagination: paginationSchema })),
        },
      },
      async handler({ userId, query, res }) {
        const { sessions, page } = await clients.chat.listSessions({
          userId,
          courseId: query.courseId,
          page: { limit: query.limit, offset: query.offset },
        });
        sendData(
          res,
          200,
          { sessions: sessions.map(chatSessionJson), pagination: paginationJson(page, "page in ListSessions reply") },
          "Chat sessions retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/chat/sessions/:id",
      tag,
      summary: "Get a chat session with its messages, oldest first",
      auth: true,
      params: sessionParams,
      responses: {
        200: {
          description: "The session and its messages",
          schema: dataEnvelope(z.object({ session: chatSessionSchema, messages: z.array(chatMessageSchema) })),
        },
        404: notFound,
      },
      async handler({ userId, params, res }) {
        const { session, messages } = await clients.chat.getSession({ userId, sessionId: params.id });
        sendData(
          res,
          200,
          { session: chatSessionJson(required(session, "session in GetSession reply")), messages: messages.map(chatMessageJson) },
          "Chat session retrieved",
        );
      },
    }),
    route({
      method: "patch",
      path: "/api/chat/sessions/:id",
      tag,
      summary: "Rename a chat session",
      auth: true,
      params: sessionParams,
      body: renameBody,
      responses: { 200: { description: "The renamed session", schema: dataEnvelope(z.object({ session: chatSessionSchema })) }, 404: notFound },
      async handler({ userId, params, body, res }) {
        const { session } = await clients.chat.renameSession({ userId, sessionId: params.id, title: body.title });
        sendData(res, 200, { session: chatSessionJson(required(session, "session in RenameSession reply")) }, "Chat session renamed");
      },
    }),
    route({
      method: "delete",
      path: "/api/chat/sessions/:id",
      tag,
      summary: "Delete a chat session and its messages",
      auth: true,
      params: sessionParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: notFound },
      async handler({ userId, params, res }) {
        await clients.chat.deleteSession({ userId, sessionId: params.id });
        sendMessage(res, "Chat session deleted");
      },
    }),
    route({
      method: "post",
      path: "/api/chat/sessions/:id/messages",
      tag,
      summary: "Ask a question in a chat session: answered from the caller's own notes and documents of the course, with citations",
      description:
        "`Accept` decides the answer's form. Preferring `text/event-stream`: 200 with server-sent events, in this order: " +
        "`question` `{message}` (the stored question), `token` `{text}` (pieces of the answer, as they come), `citations` " +
        "`{citations}`, then `done` `{message, messageId}` (the stored answer). A failure before the first event is an " +
        "ordinary error answer (404, 429, …); one after it is an `error` event whose data is the error envelope, and the " +
        "stream ends. Closing the connection stops the answer. Otherwise (JSON): 201 with the stored question and answer. " +
        "Earlier turns of the session are part of the conversation.",
      auth: true,
      params: sessionParams,
      body: askBody,
      responses: {
        200: { description: "The answer as server-sent events (Accept: text/event-stream)", contentType: "text/event-stream" },
        201: {
          description: "The stored question and answer",
          schema: dataEnvelope(z.object({ question: chatMessageSchema, answer: chatMessageSchema })),
        },
        404: notFound,
        429: { description: "Over the hourly question limit (RATE_LIMITED; Retry-After says when to ask again)", schema: errorEnvelope },
      },
      async handler({ userId, params, body, req, res }) {
        const call = clients.chat.raw.ask({ userId, sessionId: params.id, question: body.question }, traceMetadata(), {
          deadline: new Date(Date.now() + options.answerDeadlineMs),
        });
        // The client left: stop answering (the chat service stops its engine when the call is cancelled).
        res.on("close", () => call.cancel());
        const next = serverStreamReader(call, "ChatService");
        // The first event before anything is sent, so that a refusal (unknown session, rate limit) is a normal error answer.
        let state = await next();
        if (!wantsEventStream(req)) {
          let question: api.Message | undefined;
          let answer: api.Message | undefined;
          for (; !state.done; state = await next()) {
            const event = state.value.event;
            if (event?.$case === "question") question = event.value;
            if (event?.$case === "answer") answer = event.value;
          }
          sendData(
            res,
            201,
            {
              question: chatMessageJson(required(question, "question in Ask reply")),
              answer: chatMessageJson(required(answer, "answer in Ask reply")),
            },
            "Question answered",
          );
          return;
        }
        const stream = openEventStream(res);
        try {
          let answered = false;
          for (; !state.done && !stream.closed; state = await next()) {
            const { event, data } = askEvent(state.value);
            stream.send(event, data);
            answered ||= event === "done";
          }
          if (!answered && !stream.closed) throw AppError.internal("The Ask stream ended without an answer");
        } catch (error) {
          if (!stream.closed) {
            const appError = isAppError(error) ? error : AppError.internal();
            if (appError.kind === "internal" || appError.kind === "unavailable" || appError.kind === "timeout") {
              logger.error({ err: error, sessionId: params.id }, "chat answer failed mid-stream");
            }
            stream.send("error", errorBody(appError).body);
          }
        } finally {
          call.cancel();
          stream.end();
        }
      },
    }),
  ];
}
