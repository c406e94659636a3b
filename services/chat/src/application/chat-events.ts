import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { SessionTranscript } from "../domain/chat-searchable";
import type { ChatSession } from "../domain/chat-session";
import { toSearchable } from "./searchable";

export const SOURCE = "chat";

/** chat.session.created.v1: a new session, for search. */
export const chatSessionCreated = (session: ChatSession, transcript: SessionTranscript): EventEnvelope =>
  createEvent(SOURCE, session.userId, {
    $case: "chatSessionCreated",
    value: { sessionId: session.id, courseId: session.courseId, title: session.title, searchable: toSearchable(session, transcript) },
  });

/** chat.session.updated.v1: a session renamed, or with a new message (its searchable carries the messages). */
export const chatSessionUpdated = (session: ChatSession, transcript: SessionTranscript): EventEnvelope =>
  createEvent(SOURCE, session.userId, {
    $case: "chatSessionUpdated",
    value: { sessionId: session.id, courseId: session.courseId, title: session.title, searchable: toSearchable(session, transcript) },
  });

/** chat.session.deleted.v1: search forgets the session. */
export const chatSessionDeleted = (session: Pick<ChatSession, "id" | "userId" | "courseId">): EventEnvelope =>
  createEvent(SOURCE, session.userId, { $case: "chatSessionDeleted", value: { sessionId: session.id, courseId: session.courseId } });
