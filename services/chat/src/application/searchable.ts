import type { PayloadOf } from "@study/events/envelope";
import { sessionSearchText, type SessionTranscript } from "../domain/chat-searchable";
import type { ChatSession } from "../domain/chat-session";

/** The indexing contract's record (study.search.v1.Searchable), as the events and SearchableSourceService carry it. */
export type Searchable = NonNullable<PayloadOf<"chatSessionUpdated">["searchable"]>;

/**
 * study.search.v1.SearchableType.SEARCHABLE_TYPE_CHAT_SESSION. Use cases may not import @study/contracts (see
 * .dependency-cruiser.cjs), so this is the enum's wire number, which proto never changes: the type accepts only
 * numbers of the enum, and test/unit/searchable.test.ts pins this one to its name.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_CHAT_SESSION: Searchable["type"] = 8;

/**
 * A chat session as search indexes it (the one builder of the events and SearchableSourceService): the title; the
 * first question as description; the newest questions and answers as content (capped, see domain/chat-searchable);
 * the message count and the time of the last message as facts. Its version is the session's updatedAt, which every
 * change moves forward, a new message included (see nextVersion).
 */
export function toSearchable(session: ChatSession, transcript: SessionTranscript): Searchable {
  const text = sessionSearchText(session, transcript);
  return {
    type: SEARCHABLE_TYPE_CHAT_SESSION,
    id: session.id,
    userId: session.userId,
    courseId: session.courseId,
    title: text.title,
    keywords: [],
    description: text.description,
    content: text.content,
    metadata: text.metadata,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}
