import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { AmqpConnection, createEvent, EventPublisher, type EventEnvelope, type RunningConsumer } from "@study/events";
import { createLogger } from "@study/platform";
import { migrationSources } from "@study/runtime";
import { createTestDatabase, eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { PrismaPassageStore } from "../../src/adapters/db/prisma-passage-store";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { ForgetCourse, ForgetSource, IndexDocument, IndexNote } from "../../src/application/index-material";
import type { CurrentDocument, CurrentNote, DocumentSource, DocumentText, NoteSource } from "../../src/application/ports/material-sources.port";
import { PrismaClient } from "../../src/generated/prisma/client";
import { chatMigrations } from "../../src/migrations";

/** What media and documents answer now (GetNote, GetDocumentText): the consumer reads it, not the event. */
class Owners implements NoteSource, DocumentSource {
  notes = new Map<string, CurrentNote>();
  documents = new Map<string, CurrentDocument>();
  async getNote(_userId: string, noteId: string) {
    return this.notes.get(noteId) ?? null;
  }
  async getDocumentText(_userId: string, documentId: string): Promise<DocumentText> {
    const document = this.documents.get(documentId);
    return document ? { found: document } : { gone: true };
  }
}

describe("chat's consumer keeps the passages current from RabbitMQ events", () => {
  let db: PrismaClient;
  let connection: AmqpConnection;
  let consumer: RunningConsumer;
  let publisher: EventPublisher;
  const owners = new Owners();
  const userId = `user-${uniqueSuffix()}`;
  const courseId = randomUUID();

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("chat_consumer", migrationSources(chatMigrations)), 5));
    const exchange = `test.${uniqueSuffix()}`;
    const logger = createLogger("chat-test", "silent");
    connection = new AmqpConnection(testRabbitMqUrl(), logger);
    await connection.start(5_000);
    const store = new PrismaPassageStore(db);
    consumer = await startDomainEventsConsumer({
      connection,
      db,
      exchange,
      logger,
      indexNote: new IndexNote(owners, store),
      indexDocument: new IndexDocument(owners, store),
      forgetSource: new ForgetSource(store),
      forgetCourse: new ForgetCourse(store),
    });
    publisher = new EventPublisher(connection, exchange);
  });

  afterAll(async () => {
    await consumer.idle();
    await connection.close();
    await db.$disconnect();
  });

  /** Resolves once the consumer recorded the event in its inbox, i.e. handled it. */
  const publishAndWait = async (envelope: EventEnvelope) => {
    await publisher.publish([envelope]);
    await eventually(async () => {
      const rows = await db.$queryRaw<unknown[]>`SELECT 1 FROM inbox_message WHERE consumer = ${CONSUMER_NAME} AND event_id = ${envelope.id}`;
      return rows.length > 0;
    });
  };
  const texts = async (sourceId: string) => (await db.passage.findMany({ where: { sourceId }, orderBy: { position: "asc" } })).map((p) => p.text);

  it("indexes a transcribed note from its current state, re-indexes it when updated, and forgets it when deleted", async () => {
    const noteId = randomUUID();
    const current: CurrentNote = {
      noteId,
      courseId,
      title: "Lecture 2",
      segments: [{ start: 754, text: "Under ideal conditions E. coli divides every twenty minutes, so cultures grow fast." }],
      summary: "Bacterial growth.",
      userNotes: [],
      updatedAt: new Date("2026-11-25T00:00:00Z"),
    };
    owners.notes.set(noteId, current);
    const transcribed = createEvent("media", userId, {
      $case: "noteTranscribed",
      value: {
        noteId,
        jobId: "job",
        courseId,
        title: "Lecture 2",
        transcript: "stale",
        summary: "stale",
        segments: [],
        duration: 60,
        language: "en",
      },
    });
    await publishAndWait(transcribed);
    expect(await texts(noteId)).toEqual([current.segments[0].text, "Bacterial growth."]);

    owners.notes.set(noteId, { ...current, userNotes: [{ content: "Ask about the lag phase." }], updatedAt: new Date("2026-11-25T00:01:00Z") });
    await publishAndWait(
      createEvent("media", userId, {
        $case: "noteUpdated",
        value: { noteId, courseId, title: "Lecture 2", transcriptionStatus: "COMPLETED", userNotes: [] },
      }),
    );
    expect(await texts(noteId)).toHaveLength(3);

    owners.notes.delete(noteId);
    await publishAndWait(createEvent("media", userId, { $case: "noteDeleted", value: { noteId, courseId, title: "Lecture 2", storageKeys: [] } }));
    expect(await texts(noteId)).toEqual([]);
    // The transcription event once more (redelivered late, as a new message): the note stays gone.
    await publishAndWait({ ...transcribed, id: randomUUID() });
    expect(await texts(noteId)).toEqual([]);
  });

  it("indexes a processed document's pages, and drops a course's passages and chat sessions when the course is deleted", async () => {
    const documentId = randomUUID();
    owners.documents.set(documentId, { documentId, courseId, title: "Handout", pages: [{ number: 4, text: "Autoclave used plates at 121 °C." }] });
    await publishAndWait(
      createEvent("documents", userId, {
        $case: "documentProcessed",
        value: { documentId, courseId, title: "Handout", documentType: "HANDOUT", pageCount: 1, wordCount: 6 },
      }),
    );
    expect(await db.passage.findMany({ where: { sourceId: documentId }, select: { page: true, userId: true, courseId: true } })).toEqual([
      { page: 4, userId, courseId },
    ]);
    const now = new Date();
    await db.chatSession.create({
      data: { id: randomUUID(), userId, courseId, title: "Plates", noteIds: [], documentIds: [], createdAt: now, updatedAt: now },
    });

    await publishAndWait(createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Microbiology" } }));
    expect(await db.passage.count({ where: { userId, courseId } })).toBe(0);
    expect(await db.chatSession.count({ where: { userId, courseId } })).toBe(0);
  });
});
