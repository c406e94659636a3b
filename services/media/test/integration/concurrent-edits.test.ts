/**
 * Two edits of one note at once: a rename read the note before the user's notes were saved, and writes after
 * them. Each use case stores only the field it edits, so the rename keeps the notes saved meanwhile, and the user
 * notes saved after a stale read keep a rename made meanwhile (both were lost updates: each wrote the other field
 * back as it had read it).
 */
import { randomUUID } from "node:crypto";
import { createPool, prismaOptions } from "@study/db";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import type { Pool } from "pg";
import { PrismaNoteRepository } from "../../src/adapters/db/prisma-note-repository";
import { GetNote } from "../../src/application/get-note";
import { RenameNote } from "../../src/application/rename-note";
import { UpdateUserNotes } from "../../src/application/update-user-notes";
import type { Note } from "../../src/domain/note";
import { PrismaClient } from "../../src/generated/prisma/client";
import { mediaService } from "../../src/service";

describe("concurrent edits of a note", () => {
  let pool: Pool;
  let prisma: PrismaClient;
  let notes: PrismaNoteRepository;
  const userId = "alice";

  beforeAll(async () => {
    pool = createPool(await createTestDatabase("media_edits", migrationSources(mediaService)), 2);
    prisma = new PrismaClient(prismaOptions(pool));
    notes = new PrismaNoteRepository(prisma);
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await pool.end();
  });

  async function aNote(): Promise<Note> {
    const id = randomUUID();
    await pool.query("INSERT INTO note (id, user_id, course_id, title, updated_at) VALUES ($1, $2, $3, 'Lecture', now())", [
      id,
      userId,
      randomUUID(),
    ]);
    const note = await notes.findOwned(userId, id);
    if (!note) throw new Error("the note was not stored");
    return note;
  }

  /** The use cases' reader, answering the note as it was before the other edit. */
  const readAsBefore = (stale: Note) => new GetNote({ findOwned: async () => stale, findOwnedDetails: async () => null });

  it("a rename that read the note before its user notes were saved keeps them", async () => {
    const stale = await aNote();
    await new UpdateUserNotes(notes, readAsBefore(stale)).execute(userId, stale.id, [
      { timestamp: 1, content: "Saved meanwhile", contentType: "text" },
    ]);

    const renamed = await new RenameNote(notes, readAsBefore(stale)).execute(userId, stale.id, "Enzymes");

    const stored = await notes.findOwned(userId, stale.id);
    expect(stored?.title).toBe("Enzymes");
    expect(stored?.userNotes.map((entry) => entry.content)).toEqual(["Saved meanwhile"]);
    expect(renamed.userNotes.map((entry) => entry.content)).toEqual(["Saved meanwhile"]);
  });

  it("user notes saved after a stale read keep a rename made meanwhile", async () => {
    const stale = await aNote();
    await new RenameNote(notes, readAsBefore(stale)).execute(userId, stale.id, "Renamed meanwhile");

    await new UpdateUserNotes(notes, readAsBefore(stale)).execute(userId, stale.id, [{ timestamp: 1, content: "Mine", contentType: "text" }]);

    const stored = await notes.findOwned(userId, stale.id);
    expect(stored?.title).toBe("Renamed meanwhile");
    expect(stored?.userNotes.map((entry) => entry.content)).toEqual(["Mine"]);
  });
});
