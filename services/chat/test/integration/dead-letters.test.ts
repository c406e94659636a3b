import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { AppError } from "@study/platform";
import { migrationSources } from "@study/runtime";
import { createTestDatabase, expectedDrillOutcome, runDeadLetterDrill, takeDown, uniqueSuffix } from "@study/testkit";
import { PrismaPassageStore } from "../../src/adapters/db/prisma-passage-store";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { ForgetCourse, ForgetSource, IndexDocument, IndexNote } from "../../src/application/index-material";
import type { CurrentNote, DocumentSource, DocumentText, NoteSource } from "../../src/application/ports/material-sources.port";
import { PrismaClient } from "../../src/generated/prisma/client";
import { chatMigrations } from "../../src/migrations";

/** What media answers (GetNote) — or, while `down`, UNAVAILABLE, as the gRPC client reports a media service that is down. */
class MediaWithOutage implements NoteSource, DocumentSource {
  down = false;
  notes = new Map<string, CurrentNote>();
  calls = 0;
  async getNote(_userId: string, noteId: string) {
    this.calls += 1;
    if (this.down) throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "media unavailable (drill)");
    return this.notes.get(noteId) ?? null;
  }
  async getDocumentText(): Promise<DocumentText> {
    return { gone: true };
  }
}

/** The dead-letter runbook (docs/operations.md), done on the chat consumer (see runDeadLetterDrill). */
describe("chat consumer: dead letters and replay", () => {
  let db: PrismaClient;

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("chat_dlq", migrationSources(chatMigrations)), 4));
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it("dead-letters a transcribed note while media is down, comes back when replayed unrepaired, and indexes it once after the repair", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const noteId = randomUUID();
    const courseId = randomUUID();
    const media = new MediaWithOutage();
    media.notes.set(noteId, {
      noteId,
      courseId,
      title: "Lecture 2",
      segments: [{ start: 754, text: "Under ideal conditions E. coli divides every twenty minutes, so cultures grow fast." }],
      summary: "Bacterial growth.",
      userNotes: [],
      updatedAt: new Date("2026-11-25T00:00:00Z"),
    });
    const event = createEvent("media", userId, {
      $case: "noteTranscribed",
      value: { noteId, jobId: "job", courseId, title: "Lecture 2", transcript: "", summary: "", segments: [], duration: 60, language: "en" },
    });
    const store = new PrismaPassageStore(db);

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) =>
        startDomainEventsConsumer({
          ...settings,
          db,
          indexNote: new IndexNote(media, store),
          indexDocument: new IndexDocument(media, store),
          forgetSource: new ForgetSource(store),
          forgetCourse: new ForgetCourse(store),
        }),
      breakCause: () => takeDown(media),
      observe: async () => ({
        passages: (await db.passage.findMany({ where: { sourceId: noteId }, orderBy: { position: "asc" } })).map((passage) => passage.text),
        mediaAsked: media.calls,
      }),
    });

    const passages = ["Under ideal conditions E. coli divides every twenty minutes, so cultures grow fast.", "Bacterial growth."];
    // Media is asked once per delivery: 5, 5 more for the unrepaired replay, then once; the duplicate is not handled.
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "media.note.transcribed.v1",
        attempts: 5,
        lastError: "media unavailable (drill)",
        states: {
          before: { passages: [], mediaAsked: 0, inbox: 0 },
          deadLettered: { passages: [], mediaAsked: 5, inbox: 0 },
          replayedBeforeRepair: { passages: [], mediaAsked: 10, inbox: 0 },
          replayed: { passages, mediaAsked: 11, inbox: 1 },
          duplicate: { passages, mediaAsked: 11, inbox: 1 },
        },
      }),
    );
  });
});
