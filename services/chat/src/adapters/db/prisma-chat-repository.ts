import { enqueueEvents } from "@study/events";
import { isUuid } from "@study/platform/ids";
import { chatSessionCreated, chatSessionDeleted, chatSessionUpdated } from "../../application/chat-events";
import type { ChatRepository, SessionPage } from "../../application/ports/chat-ports.port";
import type { SearchableSessions, SessionWithTranscript } from "../../application/ports/searchable-sessions.port";
import { EMPTY_TRANSCRIPT, nextVersion, SEARCHABLE_MESSAGES, type SessionTranscript } from "../../domain/chat-searchable";
import type { ChatMessage, ChatSession, MessageRole } from "../../domain/chat-session";
import type { Citation } from "../../domain/passage";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

type Tx = Prisma.TransactionClient;

/** The columns of a chat session under the domain's names, for raw statements. */
const SESSION_COLUMNS = Prisma.sql`id, user_id AS "userId", course_id AS "courseId", title, titled_by_user AS "titledByUser", note_ids AS "noteIds",
  document_ids AS "documentIds", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Chat sessions and messages through Prisma. Every change of a session writes its event for search
 * (chat.session.created/updated/deleted, with the session's searchable) into the outbox in the same transaction,
 * and moves the session's updatedAt forward (a new message too): search orders a record's versions by it. The
 * session row is locked first, so that one session's changes publish in the order they commit, each with what the
 * previous one wrote.
 */
export class PrismaChatRepository implements ChatRepository, SearchableSessions {
  constructor(private readonly prisma: PrismaClient) {}

  async insertSession(session: ChatSession): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.chatSession.create({ data: session });
      await enqueueEvents(tx, [chatSessionCreated(session, EMPTY_TRANSCRIPT)]);
    });
  }

  async findSession(userId: string, sessionId: string): Promise<ChatSession | null> {
    // The id column is a UUID: anything else names no session (and would be a database error).
    if (!isUuid(sessionId)) return null;
    return this.prisma.chatSession.findFirst({ where: { id: sessionId, userId } });
  }

  async listSessions(userId: string, courseId: string, page: { limit: number; offset: number }): Promise<SessionPage> {
    const where = { userId, courseId };
    const [rows, total] = await Promise.all([
      this.prisma.chatSession.findMany({
        where,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        skip: page.offset,
        take: page.limit,
        include: { _count: { select: { messages: true } } },
      }),
      this.prisma.chatSession.count({ where }),
    ]);
    return { sessions: rows.map(({ _count, ...session }) => ({ ...session, messageCount: _count.messages })), total };
  }

  async updateSession(session: ChatSession): Promise<void> {
    const { id, userId, ...changes } = session;
    await this.prisma.$transaction(async (tx) => {
      const [stored] = await tx.$queryRaw<{ updatedAt: Date }[]>`
        SELECT updated_at AS "updatedAt" FROM chat_session WHERE id = ${id}::uuid AND user_id = ${userId} FOR UPDATE`;
      if (!stored) return;
      const saved = { ...session, updatedAt: nextVersion(stored.updatedAt, session.updatedAt) };
      await tx.chatSession.update({ where: { id }, data: { ...changes, updatedAt: saved.updatedAt } });
      await enqueueEvents(tx, [chatSessionUpdated(saved, await transcriptOf(tx, id))]);
    });
  }

  async deleteSession(userId: string, sessionId: string): Promise<boolean> {
    if (!isUuid(sessionId)) return false;
    return this.prisma.$transaction(async (tx) => {
      const [deleted] = await tx.$queryRaw<{ courseId: string }[]>`
        DELETE FROM chat_session WHERE id = ${sessionId}::uuid AND user_id = ${userId} RETURNING course_id AS "courseId"`;
      if (!deleted) return false;
      await enqueueEvents(tx, [chatSessionDeleted({ id: sessionId, userId, courseId: deleted.courseId })]);
      return true;
    });
  }

  async messages(sessionId: string): Promise<ChatMessage[]> {
    const rows = await this.prisma.chatMessage.findMany({ where: { sessionId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    return rows.map(toMessage);
  }

  async recentMessages(sessionId: string, count: number): Promise<ChatMessage[]> {
    const rows = await this.prisma.chatMessage.findMany({ where: { sessionId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: count });
    return rows.reverse().map(toMessage);
  }

  async questionTimes(userId: string, since: Date): Promise<Date[]> {
    const rows = await this.prisma.chatMessage.findMany({ where: { userId, role: "user", createdAt: { gt: since } }, select: { createdAt: true } });
    return rows.map((row) => row.createdAt);
  }

  /** Stores the message and publishes its session's searchable, now with the message, in one transaction. */
  async insertMessage(message: ChatMessage): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const [stored] = await tx.$queryRaw<ChatSession[]>`
        SELECT ${SESSION_COLUMNS} FROM chat_session WHERE id = ${message.sessionId}::uuid FOR UPDATE`;
      if (!stored) return;
      const session = { ...stored, updatedAt: nextVersion(stored.updatedAt, message.createdAt) };
      await tx.chatSession.update({ where: { id: session.id }, data: { updatedAt: session.updatedAt } });
      await tx.chatMessage.create({
        data: {
          ...message,
          userId: session.userId,
          citations: message.citations.map(({ marker, type, id, title, startTime, page, quote }) => ({
            marker,
            type,
            id,
            title,
            startTime,
            page,
            quote,
          })),
        },
      });
      const transcript = await transcriptOf(tx, session.id);
      await enqueueEvents(tx, [chatSessionUpdated(session, transcript)]);
    });
  }

  async sessionsPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<SessionWithTranscript[]> {
    const sessions = await this.prisma.chatSession.findMany({
      where: { ...(query.userId === undefined ? {} : { userId: query.userId }), ...(query.afterId === null ? {} : { id: { gt: query.afterId } }) },
      orderBy: { id: "asc" },
      take: query.limit,
    });
    const bySession = await transcripts(
      this.prisma,
      sessions.map((session) => session.id),
    );
    return sessions.map((session) => ({ session, transcript: bySession.get(session.id) ?? EMPTY_TRANSCRIPT }));
  }
}

/**
 * What the searchables of these sessions need of their messages, in two statements whatever their number: per
 * session its newest SEARCHABLE_MESSAGES messages with the count of all, and its first question.
 */
async function transcripts(db: Tx | PrismaClient, sessionIds: string[]): Promise<Map<string, SessionTranscript>> {
  if (sessionIds.length === 0) return new Map();
  const recent = await db.$queryRaw<{ sessionId: string; role: MessageRole; content: string; createdAt: Date; total: number }[]>`
    SELECT "sessionId", role, content, "createdAt", total FROM (
      SELECT session_id AS "sessionId", role, content, created_at AS "createdAt",
             row_number() OVER (PARTITION BY session_id ORDER BY created_at DESC, id DESC) AS newest,
             count(*) OVER (PARTITION BY session_id)::int AS total
      FROM chat_message WHERE session_id = ANY (${sessionIds}::uuid[])
    ) m
    WHERE newest <= ${SEARCHABLE_MESSAGES}
    ORDER BY "sessionId", newest DESC`;
  const firstQuestions = await db.$queryRaw<{ sessionId: string; content: string }[]>`
    SELECT DISTINCT ON (session_id) session_id AS "sessionId", content
    FROM chat_message WHERE session_id = ANY (${sessionIds}::uuid[]) AND role = 'user'
    ORDER BY session_id, created_at, id`;
  const messages = new Map<string, { role: MessageRole; content: string; createdAt: Date }[]>();
  const totals = new Map<string, number>();
  for (const { sessionId, total, ...message } of recent) {
    const list = messages.get(sessionId) ?? [];
    list.push(message);
    messages.set(sessionId, list);
    totals.set(sessionId, total);
  }
  const questions = new Map(firstQuestions.map((row) => [row.sessionId, row.content]));
  return new Map(
    sessionIds.map((id) => [
      id,
      { firstQuestion: questions.get(id) ?? null, recentMessages: messages.get(id) ?? [], messageCount: totals.get(id) ?? 0 },
    ]),
  );
}

async function transcriptOf(db: Tx, sessionId: string): Promise<SessionTranscript> {
  return (await transcripts(db, [sessionId])).get(sessionId) ?? EMPTY_TRANSCRIPT;
}

function toMessage(row: Prisma.ChatMessageGetPayload<object>): ChatMessage {
  return {
    id: row.id,
    sessionId: row.sessionId,
    role: row.role as MessageRole,
    content: row.content,
    citations: Array.isArray(row.citations) ? (row.citations as unknown[]).filter(isCitation) : [],
    engine: row.engine,
    createdAt: row.createdAt,
  };
}

function isCitation(value: unknown): value is Citation {
  return typeof value === "object" && value !== null && "marker" in value && "id" in value;
}
