import type { ChatRepository, SessionPage } from "../../application/ports/chat-ports.port";
import type { ChatMessage, ChatSession, MessageRole } from "../../domain/chat-session";
import type { Citation } from "../../domain/passage";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

/** Chat sessions and messages through Prisma. */
export class PrismaChatRepository implements ChatRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async insertSession(session: ChatSession): Promise<void> {
    await this.prisma.chatSession.create({ data: session });
  }

  findSession(userId: string, sessionId: string): Promise<ChatSession | null> {
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
    await this.prisma.chatSession.updateMany({ where: { id, userId }, data: changes });
  }

  async deleteSession(userId: string, sessionId: string): Promise<boolean> {
    const { count } = await this.prisma.chatSession.deleteMany({ where: { id: sessionId, userId } });
    return count > 0;
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

  async insertMessage(message: ChatMessage): Promise<void> {
    const session = await this.prisma.chatSession.findUnique({ where: { id: message.sessionId }, select: { userId: true } });
    if (!session) return;
    await this.prisma.chatMessage.create({
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
  }
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
