import type { SessionTranscript } from "../../domain/chat-searchable";
import type { ChatSession } from "../../domain/chat-session";

export interface SessionWithTranscript {
  session: ChatSession;
  transcript: SessionTranscript;
}

/** The sessions as search indexes them, for SearchableSourceService. */
export interface SearchableSessions {
  /** Sessions (every user's, or one user's) in id order, after `afterId` when given, with their transcripts. */
  sessionsPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<SessionWithTranscript[]>;
}
