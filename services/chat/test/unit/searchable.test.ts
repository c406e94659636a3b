import { indexing } from "@study/contracts";
import { chatSessionCreated, chatSessionDeleted, chatSessionUpdated } from "../../src/application/chat-events";
import { SEARCHABLE_TYPE_CHAT_SESSION, toSearchable } from "../../src/application/searchable";
import {
  EMPTY_TRANSCRIPT,
  nextVersion,
  SEARCHABLE_CONTENT_CHARS,
  SEARCHABLE_MESSAGES,
  searchableContent,
  type SessionTranscript,
} from "../../src/domain/chat-searchable";
import type { ChatSession } from "../../src/domain/chat-session";

const createdAt = new Date("2026-11-24T12:00:00Z");
const lastChange = new Date("2026-11-24T12:08:00Z");
const session: ChatSession = {
  id: "0196a000-0000-7000-8000-000000000001",
  userId: "ada",
  courseId: "0196a000-0000-7000-8000-0000000000c1",
  title: "How fast does E. coli divide?",
  titledByUser: false,
  noteIds: [],
  documentIds: [],
  createdAt,
  updatedAt: lastChange,
};
const at = (minutes: number) => new Date(createdAt.getTime() + minutes * 60_000);

describe("a chat session as search indexes it", () => {
  it("is of the contract's CHAT_SESSION type", () => {
    expect(SEARCHABLE_TYPE_CHAT_SESSION).toBe(indexing.SearchableType.SEARCHABLE_TYPE_CHAT_SESSION);
  });

  it("has the title, the first question as description, the questions and answers as content, oldest first", () => {
    const transcript: SessionTranscript = {
      firstQuestion: "How fast does E. coli divide?",
      recentMessages: [
        { role: "user", content: "How fast does E. coli divide?", createdAt: at(1) },
        { role: "assistant", content: 'From your notes: "E. coli divides every twenty minutes." [1]', createdAt: at(2) },
        { role: "user", content: "And why?", createdAt: at(7) },
        { role: "assistant", content: "Your notes and documents for this course don't cover that.", createdAt: at(8) },
      ],
      messageCount: 4,
    };
    expect(toSearchable(session, transcript)).toEqual({
      type: indexing.SearchableType.SEARCHABLE_TYPE_CHAT_SESSION,
      id: session.id,
      userId: "ada",
      courseId: session.courseId,
      title: "How fast does E. coli divide?",
      keywords: [],
      description: "How fast does E. coli divide?",
      content: [
        "How fast does E. coli divide?",
        'From your notes: "E. coli divides every twenty minutes."',
        "And why?",
        "Your notes and documents for this course don't cover that.",
      ].join("\n\n"),
      metadata: { messageCount: "4", lastMessageAt: "2026-11-24T12:08:00.000Z" },
      createdAt,
      updatedAt: lastChange,
    });
  });

  it("moves the version forward with every change, even two in the same millisecond or after the clock stepped back", () => {
    expect(nextVersion(at(1), at(2))).toEqual(at(2));
    expect(nextVersion(at(2), at(2))).toEqual(new Date(at(2).getTime() + 1));
    expect(nextVersion(at(3), at(2))).toEqual(new Date(at(3).getTime() + 1));
  });

  it("is the title alone before the first question", () => {
    expect(toSearchable({ ...session, title: "Chat about Microbiology" }, EMPTY_TRANSCRIPT)).toMatchObject({
      title: "Chat about Microbiology",
      description: "",
      content: "",
      metadata: { messageCount: "0" },
      updatedAt: lastChange,
    });
  });

  it("keeps only the newest messages that fit the cap, and cuts a single newest message longer than the cap", () => {
    const many = Array.from({ length: SEARCHABLE_MESSAGES + 10 }, (_, i) => ({ role: "user" as const, content: `message ${i}` }));
    const content = searchableContent(many);
    expect(content.split("\n\n")).toEqual(many.slice(-SEARCHABLE_MESSAGES).map((m) => m.content));

    const long = "word ".repeat(3_000).trim();
    const sized = searchableContent([
      { role: "user", content: "the first question" },
      ...Array.from({ length: 10 }, () => ({ role: "assistant" as const, content: long })),
    ]);
    // 14 999 characters each: the newest fits, one more would pass 20 000.
    expect(sized).toBe(long);

    const huge = "x".repeat(SEARCHABLE_CONTENT_CHARS + 500);
    expect(
      searchableContent([
        { role: "user", content: "older" },
        { role: "assistant", content: huge },
      ]),
    ).toBe(huge.slice(0, SEARCHABLE_CONTENT_CHARS));
  });

  it("leaves an answer's citation markers out, not brackets a question was asked with", () => {
    expect(
      searchableContent([
        { role: "user", content: "What is in cell [1] of the table?" },
        { role: "assistant", content: "From your notes: the growth rate [1], and the lag phase [2]." },
      ]),
    ).toBe("What is in cell [1] of the table?\n\nFrom your notes: the growth rate, and the lag phase.");
  });

  it("travels in chat's created, updated and deleted events, owned by the session's user", () => {
    const created = chatSessionCreated(session, EMPTY_TRANSCRIPT);
    expect(created).toMatchObject({
      type: "chat.session.created.v1",
      source: "chat",
      userId: "ada",
      payload: { $case: "chatSessionCreated", value: { sessionId: session.id, courseId: session.courseId, title: session.title } },
    });
    expect(created.payload?.$case === "chatSessionCreated" && created.payload.value.searchable).toEqual(toSearchable(session, EMPTY_TRANSCRIPT));
    expect(chatSessionUpdated(session, EMPTY_TRANSCRIPT)).toMatchObject({ type: "chat.session.updated.v1", userId: "ada" });
    expect(chatSessionDeleted(session)).toMatchObject({
      type: "chat.session.deleted.v1",
      userId: "ada",
      payload: { $case: "chatSessionDeleted", value: { sessionId: session.id, courseId: session.courseId } },
    });
  });
});
