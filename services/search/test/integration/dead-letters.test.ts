import { indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { migrationSources } from "@study/runtime";
import { createTestDatabase, expectedDrillOutcome, refuseWrites, runDeadLetterDrill, uniqueSuffix, untouchedUntilRepair } from "@study/testkit";
import { PrismaIndexLedger } from "../../src/adapters/db/prisma-index-ledger";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { PostgresSearchIndex } from "../../src/adapters/index/postgres/postgres-search-index";
import { IndexRecords } from "../../src/application/index-records";
import { RemoveRecords } from "../../src/application/remove-records";
import { PrismaClient } from "../../src/generated/prisma/client";
import { searchMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on the search consumer (see runDeadLetterDrill), with the embedded index. */
describe("search consumer: dead letters and replay", () => {
  let db: PrismaClient;

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("search_dlq", migrationSources(searchMigrations)), 6));
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it("dead-letters a record the index refuses, comes back when replayed unrepaired, and indexes it once after the repair", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const noteId = `note-${uniqueSuffix()}`;
    const at = new Date("2026-03-01T10:00:00.000Z");
    const searchable: indexing.Searchable = {
      type: indexing.SearchableType.SEARCHABLE_TYPE_NOTE,
      id: noteId,
      userId,
      courseId: undefined,
      title: "Photosynthesis lecture",
      keywords: [],
      description: "",
      content: "chlorophyll absorbs light",
      difficulty: undefined,
      status: "PROCESSING",
      metadata: {},
      createdAt: at,
      updatedAt: at,
    };
    const event = createEvent("media", userId, {
      $case: "noteImportStarted",
      value: { noteId, jobId: "job", courseId: "", title: searchable.title, importType: "video_import", searchable },
    });
    const ledger = new PrismaIndexLedger(db);
    const index = new PostgresSearchIndex(db);

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) =>
        startDomainEventsConsumer({
          ...settings,
          db,
          prefetch: 2,
          indexRecords: new IndexRecords(ledger, index),
          removeRecords: new RemoveRecords(ledger, index),
        }),
      // The embedded index's table, written in its own transaction: as Meilisearch being down would, the index refuses.
      breakCause: () => refuseWrites(db, "search_document", { operations: ["INSERT"], message: "search index unavailable (drill)" }),
      observe: async () => ({
        documents: await db.$queryRawUnsafe<unknown[]>("SELECT id, title, status FROM search_document WHERE user_id = $1", userId),
        ledger: await db.indexedRecord.count({ where: { userId } }),
      }),
    });

    // The ledger row is written in the inbox transaction, which the index's refusal rolls back with it.
    const nothing = { documents: [], ledger: 0 };
    const indexedOnce = { documents: [{ id: noteId, title: "Photosynthesis lecture", status: "PROCESSING" }], ledger: 1 };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "media.note.import_started.v1",
        attempts: 5,
        lastError: expect.stringContaining("search index unavailable (drill)"),
        states: untouchedUntilRepair(nothing, indexedOnce),
      }),
    );
  });
});
