import { indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { envelopeFromJson, type EventEnvelope } from "@study/events";
import { createClient, searchableSourceGrpcService, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { newId } from "@study/grpc/ids";
import { createLogger } from "@study/platform";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import { refusal } from "@study/testkit/refusal";
import { PrismaChatRepository } from "../../src/adapters/db/prisma-chat-repository";
import { ListSearchables } from "../../src/application/list-searchables";
import type { ChatMessage, ChatSession } from "../../src/domain/chat-session";
import { PrismaClient } from "../../src/generated/prisma/client";
import { chatMigrations } from "../../src/migrations";

const T0 = Date.parse("2026-11-24T12:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const aSession = (userId: string, title: string, minutes = 0): ChatSession => ({
  id: newId(),
  userId,
  courseId: "0196a000-0000-7000-8000-0000000000c1",
  title,
  titledByUser: false,
  noteIds: [],
  documentIds: [],
  createdAt: at(minutes),
  updatedAt: at(minutes),
});

const aMessage = (session: ChatSession, role: ChatMessage["role"], content: string, minutes: number): ChatMessage => ({
  id: newId(),
  sessionId: session.id,
  role,
  content,
  citations: [],
  engine: role === "assistant" ? "offline" : null,
  createdAt: at(minutes),
});

describe("chat sessions reach search: outbox events in the change's transaction, and SearchableSourceService", () => {
  let db: PrismaClient;
  let chats: PrismaChatRepository;

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("chat_searchables", migrationSources(chatMigrations)), 5));
    chats = new PrismaChatRepository(db);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  /** The outbox's events about a session, in the order they were written. */
  const eventsOf = async (sessionId: string): Promise<EventEnvelope[]> => {
    const rows = await db.$queryRaw<{ payload: unknown }[]>`SELECT payload FROM outbox_message ORDER BY id`;
    return rows
      .map((row) => envelopeFromJson(row.payload))
      .filter(
        (envelope) => envelope.payload !== undefined && "sessionId" in envelope.payload.value && envelope.payload.value.sessionId === sessionId,
      );
  };
  const searchableOf = (envelope: EventEnvelope | undefined) =>
    envelope?.payload?.$case === "chatSessionCreated" || envelope?.payload?.$case === "chatSessionUpdated"
      ? envelope.payload.value.searchable
      : undefined;

  it("writes created, updated (rename and every message, with the messages) and deleted events with the changes", async () => {
    const session = aSession("ada", "Chat about Microbiology");
    await chats.insertSession(session);
    await chats.insertMessage(aMessage(session, "user", "How fast does E. coli divide?", 1));
    await chats.updateSession({ ...session, title: "How fast does E. coli divide?", updatedAt: at(1) });
    await chats.insertMessage(aMessage(session, "assistant", 'From your notes: "E. coli divides every twenty minutes." [1]', 2));

    const events = await eventsOf(session.id);
    expect(events.map((event) => [event.type, event.source, event.userId])).toEqual([
      ["chat.session.created.v1", "chat", "ada"],
      ["chat.session.updated.v1", "chat", "ada"],
      ["chat.session.updated.v1", "chat", "ada"],
      ["chat.session.updated.v1", "chat", "ada"],
    ]);
    // Every change is a newer version, also the title given in the millisecond of the first question.
    const justAfter = (date: Date) => new Date(date.getTime() + 1);
    expect(events.map((event) => searchableOf(event)).map((s) => [s?.title, s?.description, s?.metadata.messageCount, s?.updatedAt])).toEqual([
      ["Chat about Microbiology", "", "0", at(0)],
      ["Chat about Microbiology", "How fast does E. coli divide?", "1", at(1)],
      ["How fast does E. coli divide?", "How fast does E. coli divide?", "1", justAfter(at(1))],
      ["How fast does E. coli divide?", "How fast does E. coli divide?", "2", at(2)],
    ]);
    expect(await db.chatSession.findUniqueOrThrow({ where: { id: session.id } })).toMatchObject({ updatedAt: at(2) });
    expect(searchableOf(events[3])).toMatchObject({
      type: indexing.SearchableType.SEARCHABLE_TYPE_CHAT_SESSION,
      id: session.id,
      userId: "ada",
      courseId: session.courseId,
      content: 'How fast does E. coli divide?\n\nFrom your notes: "E. coli divides every twenty minutes."',
      createdAt: at(0),
    });

    expect(await chats.deleteSession("bob", session.id)).toBe(false);
    expect(await chats.deleteSession("ada", session.id)).toBe(true);
    const deleted = (await eventsOf(session.id)).at(-1);
    expect(deleted).toMatchObject({
      type: "chat.session.deleted.v1",
      userId: "ada",
      payload: { $case: "chatSessionDeleted", value: { sessionId: session.id, courseId: session.courseId } },
    });
    expect(await eventsOf(session.id)).toHaveLength(5);
  });

  it("writes no event for a change that did not happen (another user's session, an unknown one)", async () => {
    const session = aSession("ada", "Growth curves");
    await chats.insertSession(session);
    await chats.updateSession({ ...session, userId: "bob", title: "Taken over", updatedAt: at(5) });
    const neverStored = aSession("ada", "Never stored");
    await chats.insertMessage(aMessage(neverStored, "user", "Lost?", 5));
    expect(await chats.deleteSession("ada", neverStored.id)).toBe(false);
    expect((await eventsOf(session.id)).map((event) => event.type)).toEqual(["chat.session.created.v1"]);
    expect(await eventsOf(neverStored.id)).toEqual([]);
    expect(await db.chatMessage.count({ where: { sessionId: neverStored.id } })).toBe(0);
    expect(await db.chatSession.findUniqueOrThrow({ where: { id: session.id } })).toMatchObject({ title: "Growth curves" });
  });

  it("keeps the change and its event together: when the outbox write fails, the change is not stored either", async () => {
    const kept = aSession("ada", "Lag phase");
    await chats.insertSession(kept);
    const refused = aSession("ada", "Autoclave");
    await db.$executeRawUnsafe("ALTER TABLE outbox_message RENAME TO outbox_message_away");
    try {
      await expect(chats.insertSession(refused)).rejects.toThrow();
      await expect(chats.insertMessage(aMessage(kept, "user", "What happens in the lag phase?", 3))).rejects.toThrow();
      await expect(chats.updateSession({ ...kept, title: "Renamed", updatedAt: at(3) })).rejects.toThrow();
      await expect(chats.deleteSession("ada", kept.id)).rejects.toThrow();
    } finally {
      await db.$executeRawUnsafe("ALTER TABLE outbox_message_away RENAME TO outbox_message");
    }
    expect(await db.chatSession.findUnique({ where: { id: refused.id } })).toBeNull();
    expect(await db.chatSession.findUniqueOrThrow({ where: { id: kept.id } })).toMatchObject({ title: "Lag phase" });
    expect(await db.chatMessage.count({ where: { sessionId: kept.id } })).toBe(0);
    expect((await eventsOf(kept.id)).map((event) => event.type)).toEqual(["chat.session.created.v1"]);
  });

  describe("SearchableSourceService over gRPC", () => {
    let server: RunningGrpcServer;
    let client: ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>;
    const listed: ChatSession[] = [];

    beforeAll(async () => {
      await db.chatSession.deleteMany({});
      for (const [userId, title] of [
        ["grace", "Enzymes"],
        ["linus", "Kernels"],
        ["grace", "Osmosis"],
        ["grace", "Mitosis"],
        ["linus", "Pipes"],
      ]) {
        const session = aSession(userId, title);
        await chats.insertSession(session);
        listed.push(session);
      }
      // 45 messages in the first session: its searchable holds the newest 40, its description the first question.
      for (let i = 0; i < 45; i++) await chats.insertMessage(aMessage(listed[0], i % 2 === 0 ? "user" : "assistant", `turn ${i}`, i + 1));
      const logger = createLogger("chat-test", "silent");
      server = await startGrpcServer({
        host: "127.0.0.1",
        port: 0,
        services: [
          { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(chats), logger) },
        ],
        logger,
      });
      client = createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, `127.0.0.1:${server.port}`);
    });

    afterAll(async () => {
      client.close();
      await server.shutdown();
    });

    it("pages through every session in id order with its searchable, the last page without a token", async () => {
      const pages: indexing.ListSearchablesResponse[] = [];
      let pageToken = "";
      do {
        const page = await client.listSearchables({ pageToken, pageSize: 2 });
        pages.push(page);
        pageToken = page.nextPageToken;
      } while (pageToken !== "");
      expect(pages.map((page) => page.searchables.length)).toEqual([2, 2, 1]);
      const all = pages.flatMap((page) => page.searchables);
      expect(all.map((searchable) => searchable.id)).toEqual(listed.map((session) => session.id).sort());
      expect(all.every((searchable) => searchable.type === indexing.SearchableType.SEARCHABLE_TYPE_CHAT_SESSION)).toBe(true);

      const busy = all.find((searchable) => searchable.id === listed[0].id);
      expect(busy).toMatchObject({ title: "Enzymes", description: "turn 0", metadata: { messageCount: "45" }, updatedAt: at(45), createdAt: at(0) });
      expect(busy?.content.split("\n\n")).toEqual(Array.from({ length: 40 }, (_, i) => `turn ${i + 5}`));
      expect(all.find((searchable) => searchable.id === listed[1].id)).toMatchObject({
        userId: "linus",
        title: "Kernels",
        content: "",
        metadata: { messageCount: "0" },
      });
    });

    it("lists one user's sessions when asked, and refuses a page token it did not make or a page size out of range", async () => {
      const grace = await client.listSearchables({ userId: "grace", pageToken: "", pageSize: 0 });
      expect(grace.searchables.map((searchable) => searchable.title).sort()).toEqual(["Enzymes", "Mitosis", "Osmosis"]);
      expect(grace.nextPageToken).toBe("");
      expect(await refusal(() => client.listSearchables({ pageToken: "bm90LWEtdXVpZA", pageSize: 2 }))).toMatchObject({ code: "VALIDATION_ERROR" });
      expect(await refusal(() => client.listSearchables({ pageToken: "", pageSize: 1001 }))).toMatchObject({ code: "VALIDATION_ERROR" });
    });
  });
});
