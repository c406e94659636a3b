import type { ChatMessage, ChatSession } from "./chat-session";

/**
 * A chat session as universal search sees it (the text part of its Searchable): found by its title, its first
 * question and what was asked and answered in it.
 *
 * The content is capped to the newest turns: every message republishes the session's whole searchable through the
 * broker and rewrites its index entry, so an unbounded transcript would make each turn of a long session cost more
 * than the last (and outgrow what an index document should hold). The newest turns are what a user remembers; the
 * first question, kept as the description, still names what the session was about.
 */
export const SEARCHABLE_MESSAGES = 40;
export const SEARCHABLE_CONTENT_CHARS = 20_000;

/** What the searchable of a session needs of its messages: read together in one place (see the repository). */
export interface SessionTranscript {
  /** The session's first question; null before any. */
  firstQuestion: string | null;
  /** Its last SEARCHABLE_MESSAGES messages (or fewer), oldest first. */
  recentMessages: readonly Pick<ChatMessage, "role" | "content" | "createdAt">[];
  /** How many messages the session has. */
  messageCount: number;
}

export const EMPTY_TRANSCRIPT: SessionTranscript = { firstQuestion: null, recentMessages: [], messageCount: 0 };

export interface SessionSearchText {
  title: string;
  description: string;
  content: string;
  metadata: Record<string, string>;
}

/**
 * A session's updatedAt after a change (a rename, a new message): the change's time, but always after the previous
 * version. Search keeps a record's newest version by updatedAt and applies an equal one again, so two changes in the
 * same millisecond (a first question and the title it gives its session) must still be ordered.
 */
export function nextVersion(previous: Date, changedAt: Date): Date {
  return changedAt.getTime() > previous.getTime() ? changedAt : new Date(previous.getTime() + 1);
}

/** An answer's citation markers ("[2]") mean nothing outside the answer: left out of the indexed text. */
const indexedText = (message: Pick<ChatMessage, "role" | "content">) =>
  (message.role === "assistant" ? message.content.replace(/\s*\[\d+\]/gu, "") : message.content).trim();

/**
 * The newest messages that fit SEARCHABLE_CONTENT_CHARS, oldest first, separated by blank lines. A newest message
 * longer than the cap on its own is cut to its beginning.
 */
export function searchableContent(messages: readonly Pick<ChatMessage, "role" | "content">[]): string {
  const kept: string[] = [];
  let length = 0;
  for (const message of messages.slice(-SEARCHABLE_MESSAGES).reverse()) {
    const text = indexedText(message);
    if (text === "") continue;
    const added = text.length + (kept.length > 0 ? 2 : 0);
    if (length + added > SEARCHABLE_CONTENT_CHARS) {
      if (kept.length === 0) kept.push(text.slice(0, SEARCHABLE_CONTENT_CHARS));
      break;
    }
    kept.push(text);
    length += added;
  }
  return kept.reverse().join("\n\n");
}

/** The title; the first question as description; the newest turns as content; the message count and last message time. */
export function sessionSearchText(session: ChatSession, transcript: SessionTranscript): SessionSearchText {
  const newest = transcript.recentMessages.at(-1);
  const metadata: Record<string, string> = { messageCount: String(transcript.messageCount) };
  if (newest) metadata.lastMessageAt = newest.createdAt.toISOString();
  return {
    title: session.title,
    description: transcript.firstQuestion ?? "",
    content: searchableContent(transcript.recentMessages),
    metadata,
  };
}
