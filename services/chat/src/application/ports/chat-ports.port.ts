import type { ChatMessage, ChatSession } from "../../domain/chat-session";
import type { Citation, Passage } from "../../domain/passage";

export interface SessionPage {
  sessions: (ChatSession & { messageCount: number })[];
  total: number;
}

/** Chat sessions and their messages (the service's own tables). */
export interface ChatRepository {
  insertSession(session: ChatSession): Promise<void>;
  findSession(userId: string, sessionId: string): Promise<ChatSession | null>;
  listSessions(userId: string, courseId: string, page: { limit: number; offset: number }): Promise<SessionPage>;
  updateSession(session: ChatSession): Promise<void>;
  deleteSession(userId: string, sessionId: string): Promise<boolean>;
  messages(sessionId: string): Promise<ChatMessage[]>;
  /** The last `count` messages of the session, oldest first. */
  recentMessages(sessionId: string, count: number): Promise<ChatMessage[]>;
  /** The times of the user's questions since `since` (any session). */
  questionTimes(userId: string, since: Date): Promise<Date[]>;
  insertMessage(message: ChatMessage): Promise<void>;
}

export interface RetrievalScope {
  userId: string;
  courseId: string;
  /** Limit to these notes and documents (both empty: the whole course). */
  noteIds: string[];
  documentIds: string[];
}

/** The user's passages of one course, best first. Never returns another user's or another course's passage. */
export interface PassageIndex {
  retrieve(scope: RetrievalScope, query: string, limit: number, signal?: AbortSignal): Promise<Passage[]>;
  /**
   * The transcript passage right after each of these (a note's segment, by its start time), in the user's course:
   * what a follow-up ("and then?") often asks about. Places that are not transcript passages are skipped.
   */
  following(scope: RetrievalScope, places: readonly { sourceId: string; startTime: number | null }[]): Promise<Passage[]>;
}

/** Checks that the course, notes and documents named are the user's (NOT_FOUND otherwise); answers the course name. */
export interface OwnershipCheck {
  courseName(userId: string, courseId: string): Promise<string>;
  /** Each note and document must be the user's and of the course: NOT_FOUND "Note"/"Document" otherwise. */
  assertOwnsSources(userId: string, courseId: string, noteIds: readonly string[], documentIds: readonly string[]): Promise<void>;
}

export type AnswerPiece = { token: string } | { citations: Citation[] };

/**
 * Writes an answer from the passages (numbered [1]…[n] in the order given), streaming its text and then its
 * citations. `history` is the session's recent turns.
 */
export interface AnswerEngine {
  readonly name: string;
  answer(
    input: {
      question: string;
      /** What the passages were retrieved for: the question, with the previous one for a short follow-up. */
      query: string;
      history: readonly { role: "user" | "assistant"; content: string }[];
      passages: readonly Passage[];
      /** Among the passages, for a follow-up: what the lecture says right after the passages the previous answer quoted. */
      following: readonly Passage[];
    },
    signal?: AbortSignal,
  ): AsyncIterable<AnswerPiece>;
}
