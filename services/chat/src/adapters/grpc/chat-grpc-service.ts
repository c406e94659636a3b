import { chat as api } from "@study/contracts";
import { bindUnaryHandlers, pageInfo, serverStream } from "@study/grpc";
import { AppError, type Logger } from "@study/platform";
import type { Ask } from "../../application/ask";
import type { CreateSession, DeleteSession, GetSession, ListSessions, RenameSession } from "../../application/sessions";
import type { ChatMessage, ChatSession } from "../../domain/chat-session";
import type { Citation } from "../../domain/passage";

export interface ChatUseCases {
  createSession: CreateSession;
  listSessions: ListSessions;
  getSession: GetSession;
  renameSession: RenameSession;
  deleteSession: DeleteSession;
  ask: Ask;
}

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

function sessionPage(page: { limit: number; offset: number } | undefined): { limit: number; offset: number } {
  const limit = page?.limit || DEFAULT_PAGE_SIZE;
  const offset = page?.offset ?? 0;
  if (limit < 1 || limit > MAX_PAGE_SIZE)
    throw AppError.validation("Invalid page", [{ field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }]);
  if (offset < 0) throw AppError.validation("Invalid page", [{ field: "offset", message: "must not be negative" }]);
  return { limit, offset };
}

export const toProtoSession = (session: ChatSession, messageCount: number): api.Session => ({
  id: session.id,
  userId: session.userId,
  courseId: session.courseId,
  title: session.title,
  noteIds: session.noteIds,
  documentIds: session.documentIds,
  createdAt: session.createdAt,
  updatedAt: session.updatedAt,
  messageCount,
});

const toProtoCitation = (citation: Citation): api.Citation => ({
  marker: citation.marker,
  type: citation.type === "note" ? api.CitationType.CITATION_TYPE_NOTE : api.CitationType.CITATION_TYPE_DOCUMENT,
  id: citation.id,
  title: citation.title,
  startTime: citation.startTime ?? undefined,
  page: citation.page ?? undefined,
  quote: citation.quote,
});

export const toProtoMessage = (message: ChatMessage): api.Message => ({
  id: message.id,
  role: message.role === "user" ? api.MessageRole.MESSAGE_ROLE_USER : api.MessageRole.MESSAGE_ROLE_ASSISTANT,
  content: message.content,
  citations: message.citations.map(toProtoCitation),
  createdAt: message.createdAt,
  engine: message.engine ?? "",
});

/** study.chat.v1.ChatService: unary session calls and the server-streaming Ask. */
export function chatGrpcService(useCases: ChatUseCases, logger: Logger): api.ChatServiceServer {
  const ask = serverStream<api.AskRequest, api.AskResponse>(logger, "Ask", async (request, { send, signal }) => {
    for await (const event of useCases.ask.execute(request.userId, request.sessionId, request.question, signal)) {
      if ("question" in event) await send({ event: { $case: "question", value: toProtoMessage(event.question) } });
      else if ("token" in event) await send({ event: { $case: "token", value: event.token } });
      else if ("citations" in event) await send({ event: { $case: "citations", value: { citations: event.citations.map(toProtoCitation) } } });
      else await send({ event: { $case: "answer", value: toProtoMessage(event.answer) } });
    }
  });
  const unaryHandlers = bindUnaryHandlers(logger, api.ChatServiceService, {
    createSession: async (request) => {
      const session = await useCases.createSession.execute(request.userId, {
        courseId: request.courseId,
        title: request.title,
        noteIds: request.noteIds,
        documentIds: request.documentIds,
      });
      return { session: toProtoSession(session, 0) };
    },
    listSessions: async (request) => {
      const page = sessionPage(request.page);
      const { sessions, total } = await useCases.listSessions.execute(request.userId, request.courseId, page);
      return {
        sessions: sessions.map((session) => toProtoSession(session, session.messageCount)),
        page: pageInfo({ ...page, total, count: sessions.length }),
      };
    },
    getSession: async (request) => {
      const { session, messages } = await useCases.getSession.execute(request.userId, request.sessionId);
      return { session: toProtoSession(session, messages.length), messages: messages.map(toProtoMessage) };
    },
    renameSession: async (request) => {
      await useCases.renameSession.execute(request.userId, request.sessionId, request.title);
      const { session, messages } = await useCases.getSession.execute(request.userId, request.sessionId);
      return { session: toProtoSession(session, messages.length) };
    },
    deleteSession: async (request) => {
      await useCases.deleteSession.execute(request.userId, request.sessionId);
      return {};
    },
  });
  return { ...unaryHandlers, ask };
}
