import { newId } from "@study/grpc/ids";
import type { Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { MAX_SCOPE_ITEMS, defaultTitle, validTitle, type ChatMessage, type ChatSession } from "../domain/chat-session";
import type { ChatRepository, OwnershipCheck, SessionPage } from "./ports/chat-ports.port";

const notFound = () => AppError.notFound("Chat session");

export class CreateSession {
  constructor(
    private readonly chats: ChatRepository,
    private readonly ownership: OwnershipCheck,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, input: { courseId: string; title?: string; noteIds?: string[]; documentIds?: string[] }): Promise<ChatSession> {
    requireUserId(userId);
    const noteIds = [...new Set(input.noteIds ?? [])];
    const documentIds = [...new Set(input.documentIds ?? [])];
    if (noteIds.length + documentIds.length > MAX_SCOPE_ITEMS) {
      throw AppError.validation(`A session can be limited to at most ${MAX_SCOPE_ITEMS} notes and documents`, [
        { field: "noteIds", message: `at most ${MAX_SCOPE_ITEMS} with documentIds` },
      ]);
    }
    const courseName = await this.ownership.courseName(userId, input.courseId);
    await this.ownership.assertOwnsSources(userId, input.courseId, noteIds, documentIds);
    const now = this.clock.now();
    const session: ChatSession = {
      id: newId(),
      userId,
      courseId: input.courseId,
      title: input.title === undefined ? defaultTitle(courseName) : validTitle(input.title),
      titledByUser: input.title !== undefined,
      noteIds,
      documentIds,
      createdAt: now,
      updatedAt: now,
    };
    await this.chats.insertSession(session);
    return session;
  }
}

export class ListSessions {
  constructor(private readonly chats: ChatRepository) {}

  execute(userId: string, courseId: string, page: { limit: number; offset: number }): Promise<SessionPage> {
    return this.chats.listSessions(requireUserId(userId), courseId, page);
  }
}

export class GetSession {
  constructor(private readonly chats: ChatRepository) {}

  async execute(userId: string, sessionId: string): Promise<{ session: ChatSession; messages: ChatMessage[] }> {
    const session = await this.chats.findSession(requireUserId(userId), sessionId);
    if (!session) throw notFound();
    return { session, messages: await this.chats.messages(session.id) };
  }
}

export class RenameSession {
  constructor(
    private readonly chats: ChatRepository,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, sessionId: string, title: string): Promise<ChatSession> {
    const session = await this.chats.findSession(requireUserId(userId), sessionId);
    if (!session) throw notFound();
    const renamed = { ...session, title: validTitle(title), titledByUser: true, updatedAt: this.clock.now() };
    await this.chats.updateSession(renamed);
    return renamed;
  }
}

export class DeleteSession {
  constructor(private readonly chats: ChatRepository) {}

  async execute(userId: string, sessionId: string): Promise<void> {
    if (!(await this.chats.deleteSession(requireUserId(userId), sessionId))) throw notFound();
  }
}
