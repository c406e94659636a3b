import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import { PrismaPassageIndex } from "../../src/adapters/db/prisma-passage-index";
import { PrismaPassageStore } from "../../src/adapters/db/prisma-passage-store";
import { documentPassages, notePassages } from "../../src/domain/passage-builder";
import { PrismaClient } from "../../src/generated/prisma/client";
import { chatMigrations } from "../../src/migrations";

describe("the passage store on PostgreSQL", () => {
  let db: PrismaClient;
  let store: PrismaPassageStore;
  let index: PrismaPassageIndex;
  const ada = { userId: "ada", courseId: "micro" };

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("chat_passages", migrationSources(chatMigrations)), 5));
    store = new PrismaPassageStore(db);
    index = new PrismaPassageIndex(db);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  const lecture = (noteId: string, text: string, title = "Lecture 2") =>
    notePassages({ noteId, title, segments: [{ start: 754, text }], summary: null, userNotes: [] });
  const find = (query: string, userId = "ada", courseId = "micro") => index.retrieve({ userId, courseId, noteIds: [], documentIds: [] }, query, 10);

  it("replaces a source's passages, which retrieval finds at once, and keeps the old ones when the new ones cannot be written", async () => {
    const noteId = randomUUID();
    await store.replaceSourcePassages(ada, "note", noteId, lecture(noteId, "Under ideal conditions E. coli divides every twenty minutes."), null);
    expect((await find("divides")).map((p) => ({ sourceId: p.sourceId, startTime: p.startTime }))).toEqual([{ sourceId: noteId, startTime: 754 }]);

    await store.replaceSourcePassages(ada, "note", noteId, lecture(noteId, "In the lag phase the cells adapt to the medium.", "Growth"), null);
    expect(await find("divides")).toEqual([]);
    expect((await find("lag phase")).map((p) => p.title)).toEqual(["Growth"]);

    // One transaction: a draft the table refuses (a page number beyond its integer column) rolls the delete back with it.
    const broken = [...lecture(noteId, "Stationary phase: nutrients run out."), { ...lecture(noteId, "x")[0], page: 2 ** 40 }];
    await expect(store.replaceSourcePassages(ada, "note", noteId, broken, null)).rejects.toThrow();
    expect((await find("lag phase")).map((p) => p.sourceId)).toEqual([noteId]);
    expect(await find("stationary")).toEqual([]);
  });

  it("applies a note's state only if it is not older than the one in place, and nothing after the note was deleted", async () => {
    const noteId = randomUUID();
    const at = (second: number) => new Date(Date.UTC(2026, 10, 25, 0, 0, second));
    expect(await store.replaceSourcePassages(ada, "note", noteId, lecture(noteId, "Newer: binary fission."), at(5))).toBe(true);
    expect(await store.replaceSourcePassages(ada, "note", noteId, lecture(noteId, "Older: budding."), at(1))).toBe(false);
    expect((await db.passage.findMany({ where: { sourceId: noteId } })).map((row) => row.text)).toEqual(["Newer: binary fission."]);
    expect(await store.replaceSourcePassages(ada, "note", noteId, lecture(noteId, "Same state again."), at(5))).toBe(true);

    expect(await store.deleteSource("note", noteId)).toBe(1);
    expect(await store.replaceSourcePassages(ada, "note", noteId, lecture(noteId, "Read before the delete."), at(9))).toBe(false);
    expect(await db.passage.count({ where: { sourceId: noteId } })).toBe(0);
  });

  it("finds the transcript passage after a cited one, in the user's own course only", async () => {
    const noteId = randomUUID();
    const sentence = (topic: string) => `${topic} is what this part of the lecture explains in enough words to stand alone as a passage.`;
    const drafts = notePassages({
      noteId,
      title: "Lecture 1",
      segments: [
        { start: 10, text: sentence("The Gram stain") },
        { start: 20, text: sentence("Gram-negative colouring") },
        { start: 30, text: sentence("The capsule") },
      ],
      summary: "A summary.",
      userNotes: [],
    });
    await store.replaceSourcePassages(ada, "note", noteId, drafts, null);
    const scope = { ...ada, noteIds: [], documentIds: [] };
    const next = await index.following(scope, [
      { sourceId: noteId, startTime: 10 },
      { sourceId: noteId, startTime: 30 },
      { sourceId: noteId, startTime: null },
    ]);
    expect(next.map((passage) => [passage.startTime, passage.kind])).toEqual([[20, "segment"]]);
    expect(await index.following({ ...scope, userId: "bob" }, [{ sourceId: noteId, startTime: 10 }])).toEqual([]);
  });

  it("leaves one set of passages when two replacements of a source run at once", async () => {
    const documentId = randomUUID();
    const version = (words: string) =>
      documentPassages({ documentId, title: "Handout", pages: [1, 2, 3].map((number) => ({ number, text: `${words} on page ${number}.` })) });
    await Promise.all([
      store.replaceSourcePassages(ada, "document", documentId, version("Autoclave plates"), null),
      store.replaceSourcePassages(ada, "document", documentId, version("Sterilise plates"), null),
      store.replaceSourcePassages(ada, "document", documentId, version("Incubate plates"), null),
    ]);
    const rows = await db.passage.findMany({ where: { sourceId: documentId }, orderBy: { page: "asc" } });
    expect(rows.map((row) => row.page)).toEqual([1, 2, 3]);
    expect(new Set(rows.map((row) => row.text.split(" ")[0])).size).toBe(1);
    expect(await store.deleteSource("document", documentId)).toBe(3);
    expect(await store.deleteSource("document", documentId)).toBe(0);
  });

  it("forgets a deleted course of one user: its passages, sessions and messages, nothing of another course or user", async () => {
    const [mine, otherCourse, bobs] = [randomUUID(), randomUUID(), randomUUID()];
    await store.replaceSourcePassages({ userId: "ada", courseId: "genetics" }, "note", mine, lecture(mine, "Mendel crossed peas."), null);
    await store.replaceSourcePassages({ userId: "ada", courseId: "botany" }, "note", otherCourse, lecture(otherCourse, "Mendel grew peas."), null);
    await store.replaceSourcePassages({ userId: "bob", courseId: "genetics" }, "note", bobs, lecture(bobs, "Mendel counted peas."), null);
    const session = async (userId: string, courseId: string) => {
      const id = randomUUID();
      const now = new Date();
      await db.chatSession.create({ data: { id, userId, courseId, title: "Peas", noteIds: [], documentIds: [], createdAt: now, updatedAt: now } });
      await db.chatMessage.create({ data: { id: randomUUID(), sessionId: id, userId, role: "user", content: "Peas?", createdAt: now } });
      return id;
    };
    const adaSession = await session("ada", "genetics");
    await session("ada", "botany");
    await session("bob", "genetics");

    expect(await store.deleteCourse("ada", "genetics")).toEqual({ passages: 1, sessions: 1 });
    expect(await db.passage.count({ where: { sourceId: { in: [mine, otherCourse, bobs] } } })).toBe(2);
    expect(await db.chatMessage.count({ where: { sessionId: adaSession } })).toBe(0);
    expect(await db.chatSession.count({ where: { courseId: { in: ["genetics", "botany"] } } })).toBe(2);
  });

  it("names the sources written before a time, one user's or everyone's, for the reindex", async () => {
    const [adaNote, bobNote] = [randomUUID(), randomUUID()];
    await store.replaceSourcePassages({ userId: "ada", courseId: "chem" }, "note", adaNote, lecture(adaNote, "Acids donate protons."), null);
    await store.replaceSourcePassages({ userId: "bob", courseId: "chem" }, "note", bobNote, lecture(bobNote, "Bases accept protons."), null);
    const later = new Date(Date.now() + 60_000);
    const adas = await store.sourcesIndexedBefore({ userId: "ada", before: later });
    expect(adas).toContainEqual({ sourceType: "note", sourceId: adaNote });
    expect(adas).not.toContainEqual({ sourceType: "note", sourceId: bobNote });
    expect(await store.sourcesIndexedBefore({ before: later })).toContainEqual({ sourceType: "note", sourceId: bobNote });
    expect(await store.sourcesIndexedBefore({ before: new Date(Date.now() - 60_000) })).toEqual([]);
  });
});
