import { AppError } from "@study/platform/errors";
import type { Citation } from "./passage";

export interface ChatSession {
  id: string;
  userId: string;
  courseId: string;
  title: string;
  /** The user chose the title (at creation or by renaming): a question no longer replaces it. */
  titledByUser: boolean;
  noteIds: string[];
  documentIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

export type MessageRole = "user" | "assistant";

export interface ChatMessage {
  id: string;
  sessionId: string;
  role: MessageRole;
  content: string;
  citations: Citation[];
  /** Which engine wrote an answer ("offline", "openai"); null for a question. */
  engine: string | null;
  createdAt: Date;
}

export const MAX_QUESTION_CHARS = 2_000;
export const MAX_TITLE_CHARS = 200;
/** Notes and documents a session may be limited to. */
export const MAX_SCOPE_ITEMS = 50;

export function validQuestion(question: string): string {
  const trimmed = question.trim();
  if (trimmed.length === 0) throw AppError.validation("question is required", [{ field: "question", message: "must not be empty" }]);
  if (trimmed.length > MAX_QUESTION_CHARS) {
    throw AppError.validation(`question is too long`, [{ field: "question", message: `must be at most ${MAX_QUESTION_CHARS} characters` }]);
  }
  return trimmed;
}

export function validTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_TITLE_CHARS) {
    throw AppError.validation("title must be 1-200 characters", [{ field: "title", message: `must be 1-${MAX_TITLE_CHARS} characters` }]);
  }
  return trimmed;
}

/** A new session's title when none is given: the first question names it later (see titleFromQuestion). */
export const defaultTitle = (courseName: string) => `Chat about ${courseName}`.slice(0, MAX_TITLE_CHARS);

/** The first question, shortened to a title ("How does the Gram stain work?"). */
export function titleFromQuestion(question: string): string {
  const flat = question.replace(/\s+/gu, " ").trim();
  return flat.length <= 80 ? flat : `${flat.slice(0, 79).replace(/\s+\S*$/u, "")}…`;
}

/**
 * Questions per user per hour (the spec recommends 50 AI requests per hour). `asked` are the times of the user's
 * questions in the last hour; over the limit: RATE_LIMITED with the seconds until a slot frees up.
 */
export function assertWithinRate(asked: readonly Date[], limitPerHour: number, now: Date): void {
  const windowStart = now.getTime() - 3_600_000;
  const recent = asked.filter((at) => at.getTime() > windowStart).sort((a, b) => a.getTime() - b.getTime());
  if (recent.length < limitPerHour) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((recent[recent.length - limitPerHour].getTime() - windowStart) / 1000));
  throw new AppError("rate_limited", "RATE_LIMITED", `You can ask ${limitPerHour} questions per hour; try again in ${retryAfterSeconds} s`, {
    action: "RETRY_LATER",
    details: [{ field: "retryAfterSeconds", message: String(retryAfterSeconds) }],
  });
}

/** Words that make a short question lean on the previous one ("and why?", "when did he do it?"). */
const FOLLOW_UP_OPENERS = /^(and|but|so|also|then|what about|how about|why|why not|really)\b/iu;
const REFERRING_WORDS = new Set([
  "he",
  "she",
  "it",
  "they",
  "him",
  "her",
  "them",
  "his",
  "its",
  "their",
  "this",
  "that",
  "these",
  "those",
  "there",
  "one",
  "ones",
]);

/** Whether a question needs the previous one to be understood: short, and opening with "and"/"why"… or referring back. */
export function isFollowUp(question: string): boolean {
  const words = question.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  if (words.length === 0 || words.length > 8) return false;
  return FOLLOW_UP_OPENERS.test(question.trim()) || words.some((word) => REFERRING_WORDS.has(word));
}

/**
 * What retrieval searches for: the question, and for a follow-up ("and why?", "when did he do it?") the previous
 * question too, so that it finds the same material. A short question that stands on its own ("Who discovered
 * penicillin?") is searched alone.
 */
export function retrievalQuery(question: string, previousQuestion: string | null): string {
  return previousQuestion && isFollowUp(question) ? `${previousQuestion} ${question}` : question;
}
