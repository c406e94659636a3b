import { newId } from "@study/grpc/ids";
import type { Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { assertWithinRate, isFollowUp, retrievalQuery, titleFromQuestion, validQuestion, type ChatMessage } from "../domain/chat-session";
import type { Citation } from "../domain/passage";
import type { AnswerEngine, ChatRepository, PassageIndex } from "./ports/chat-ports.port";

export interface AskSettings {
  questionsPerHour: number;
  /** Passages given to the engine. */
  passages: number;
  /** Earlier messages of the session the engine sees. */
  historyMessages: number;
}

export type AskEvent = { question: ChatMessage } | { token: string } | { citations: Citation[] } | { answer: ChatMessage };

/**
 * A question in a session: checked against the hourly limit, stored, answered from the passages retrieved for it
 * (the user's own, of the session's course and scope) while the answer streams, and the answer stored with its
 * citations. A session's first question names it.
 */
export class Ask {
  constructor(private readonly deps: { chats: ChatRepository; index: PassageIndex; engine: AnswerEngine; clock: Clock; settings: AskSettings }) {}

  async *execute(userId: string, sessionId: string, rawQuestion: string, signal?: AbortSignal): AsyncGenerator<AskEvent> {
    const { chats, index, engine, clock, settings } = this.deps;
    requireUserId(userId);
    const question = validQuestion(rawQuestion);
    const session = await chats.findSession(userId, sessionId);
    if (!session) throw AppError.notFound("Chat session");
    const now = clock.now();
    assertWithinRate(await chats.questionTimes(userId, new Date(now.getTime() - 3_600_000)), settings.questionsPerHour, now);

    const history = await chats.recentMessages(session.id, settings.historyMessages);
    const asked: ChatMessage = { id: newId(), sessionId: session.id, role: "user", content: question, citations: [], engine: null, createdAt: now };
    await chats.insertMessage(asked);
    if (history.length === 0 && !session.titledByUser) await chats.updateSession({ ...session, title: titleFromQuestion(question), updatedAt: now });
    yield { question: asked };

    const previousQuestion = [...history].reverse().find((message) => message.role === "user")?.content ?? null;
    const query = retrievalQuery(question, previousQuestion);
    const scope = { userId, courseId: session.courseId, noteIds: session.noteIds, documentIds: session.documentIds };
    const retrieved = await index.retrieve(scope, query, settings.passages, signal);
    // A follow-up often asks about what the lecture says next ("and the other ones?"): the segments after those the
    // previous answer quoted join the passages the engine may answer from.
    const previousCitations = [...history].reverse().find((message) => message.role === "assistant")?.citations ?? [];
    const following =
      previousQuestion !== null && isFollowUp(question)
        ? await index.following(
            scope,
            previousCitations.slice(0, 3).map((citation) => ({ sourceId: citation.id, startTime: citation.startTime })),
          )
        : [];
    const passages = [...retrieved, ...following.filter((passage) => !retrieved.some((found) => found.id === passage.id))];
    const continuation = passages.filter((passage) => following.some((next) => next.id === passage.id));
    let text = "";
    let citations: Citation[] = [];
    for await (const piece of engine.answer(
      { question, query, history: history.map(({ role, content }) => ({ role, content })), passages, following: continuation },
      signal,
    )) {
      if ("token" in piece) {
        text += piece.token;
        yield { token: piece.token };
      } else {
        citations = piece.citations;
        yield { citations };
      }
    }
    const answer: ChatMessage = {
      id: newId(),
      sessionId: session.id,
      role: "assistant",
      content: text,
      citations,
      engine: engine.name,
      createdAt: clock.now(),
    };
    await chats.insertMessage(answer);
    yield { answer };
  }
}
