import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { fixedClock } from "@study/platform/clock";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import { OfflineAnswerEngine } from "../../src/adapters/engines/offline-answer-engine";
import { PrismaChatRepository } from "../../src/adapters/db/prisma-chat-repository";
import { PrismaPassageIndex } from "../../src/adapters/db/prisma-passage-index";
import { Ask, type AskEvent } from "../../src/application/ask";
import { ListSessions } from "../../src/application/sessions";
import { PrismaClient } from "../../src/generated/prisma/client";
import { chatMigrations } from "../../src/migrations";

describe("chat sessions, messages and passage retrieval on PostgreSQL", () => {
  let db: PrismaClient;
  const clock = fixedClock("2026-11-24T12:00:00Z");

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("chat", migrationSources(chatMigrations)), 5));
    let position = 0;
    const add = (
      userId: string,
      courseId: string,
      sourceId: string,
      text: string,
      extra: { sourceType?: string; kind?: string; startTime?: number; page?: number } = {},
    ) =>
      db.passage.create({
        data: {
          id: randomUUID(),
          userId,
          courseId,
          sourceType: extra.sourceType ?? "note",
          sourceId,
          title: sourceId,
          kind: extra.kind ?? "segment",
          position: position++,
          startTime: extra.startTime ?? null,
          page: extra.page ?? null,
          text,
        },
      });
    await add("ada", "micro", "lecture-2", "Under ideal conditions E. coli divides every twenty minutes.", { startTime: 754 });
    await add("ada", "micro", "lecture-2", "In the lag phase the cells adapt to the medium and make enzymes.", { startTime: 120 });
    await add("ada", "micro", "handout", "Autoclave used plates at 121 degrees for twenty minutes.", {
      sourceType: "document",
      kind: "page",
      page: 4,
    });
    await add("ada", "history", "lecture-9", "E. coli was named after Theodor Escherich.", { startTime: 30 });
    await add("bob", "micro", "bob-notes", "Bob's secret: E. coli divides every twenty minutes.", { startTime: 5 });
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  it("retrieves the user's passages of the course by any of the question's words, best first, within the scope", async () => {
    const index = new PrismaPassageIndex(db);
    const found = await index.retrieve({ userId: "ada", courseId: "micro", noteIds: [], documentIds: [] }, "How often does E. coli divide?", 5);
    expect(found.map((p) => p.text)).toEqual(["Under ideal conditions E. coli divides every twenty minutes."]);
    expect(found[0]).toMatchObject({ sourceType: "note", sourceId: "lecture-2", startTime: 754, page: null });
    const twenty = await index.retrieve({ userId: "ada", courseId: "micro", noteIds: [], documentIds: [] }, "What takes twenty minutes?", 5);
    expect(twenty.map((p) => p.sourceId).sort()).toEqual(["handout", "lecture-2"]);
    expect(twenty.every((p) => !p.text.includes("Bob"))).toBe(true);
    const scoped = await index.retrieve({ userId: "ada", courseId: "micro", noteIds: [], documentIds: ["handout"] }, "twenty minutes", 5);
    expect(scoped.map((p) => p.sourceId)).toEqual(["handout"]);
    expect(await index.retrieve({ userId: "ada", courseId: "micro", noteIds: [], documentIds: [] }, "the of and", 5)).toEqual([]);
  });

  it("stores a session's turns with their citations and lists sessions with their message counts", async () => {
    const chats = new PrismaChatRepository(db);
    const session = {
      id: randomUUID(),
      userId: "ada",
      courseId: "micro",
      title: "Growth",
      titledByUser: false,
      noteIds: [],
      documentIds: [],
      createdAt: clock.now(),
      updatedAt: clock.now(),
    };
    await chats.insertSession(session);
    const ask = new Ask({
      chats,
      index: new PrismaPassageIndex(db),
      engine: new OfflineAnswerEngine(),
      clock,
      settings: { questionsPerHour: 50, passages: 5, historyMessages: 6 },
    });
    const events: AskEvent[] = [];
    for await (const event of ask.execute("ada", session.id, "How often does E. coli divide?")) events.push(event);
    const stored = await chats.messages(session.id);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(stored[1].citations).toEqual([
      expect.objectContaining({ id: "lecture-2", startTime: 754, quote: "Under ideal conditions E. coli divides every twenty minutes." }),
    ]);
    expect(await chats.questionTimes("ada", new Date(0))).toHaveLength(1);
    const page = await new ListSessions(chats).execute("ada", "micro", { limit: 10, offset: 0 });
    expect(page.sessions.find((s) => s.id === session.id)).toMatchObject({ title: "How often does E. coli divide?", messageCount: 2 });
    expect(await chats.findSession("bob", session.id)).toBeNull();
    expect(await chats.deleteSession("bob", session.id)).toBe(false);
    expect(await chats.deleteSession("ada", session.id)).toBe(true);
    expect(await db.chatMessage.count({ where: { sessionId: session.id } })).toBe(0);
  });
});
