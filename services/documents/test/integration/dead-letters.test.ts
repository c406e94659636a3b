import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { createLogger } from "@study/platform";
import { migrationSources } from "@study/runtime";
import { LocalScratchSpace } from "@study/storage";
import { StorageWithOutage } from "@study/storage/testing";
import {
  createTestDatabase,
  expectedDrillOutcome,
  refuseWrites,
  runDeadLetterDrill,
  takeDown,
  uniqueSuffix,
  untouchedUntilRepair,
  type DrillConsumerSettings,
} from "@study/testkit";
import { PrismaDocumentRepository } from "../../src/adapters/db/prisma-document-repository";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { GIVEN_UP_MESSAGE, startExtractionWorkerConsumer, WORKER_CONSUMER_NAME } from "../../src/adapters/events/extraction-worker-consumer";
import { createTextExtractor } from "../../src/adapters/extraction/text-extractor";
import { DeleteCourseDocuments } from "../../src/application/delete-document";
import { prepareChunksOrKeywordOnly } from "../../src/application/prepare-chunks";
import { DEFAULT_MAX_ATTEMPTS, ProcessDocument } from "../../src/application/process-document";
import { PrismaClient } from "../../src/generated/prisma/client";
import { documentsMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on the documents consumer and the documents worker's (see runDeadLetterDrill). */
describe("documents consumers: dead letters and replay", () => {
  let db: PrismaClient;
  let folder: string;
  let storage: StorageWithOutage;
  const logger = createLogger("documents-dlq-test", "silent");

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("documents_dlq", migrationSources(documentsMigrations)), 6));
    folder = await mkdtemp(join(tmpdir(), "documents-dlq-"));
    storage = new StorageWithOutage({ rootDirectory: join(folder, "storage"), publicBaseUrl: "http://localhost/api/files" });
  });
  afterAll(async () => {
    await db?.$disconnect();
    await rm(folder, { recursive: true, force: true });
  });

  const outboxCount = async (type: string) =>
    (await db.$queryRawUnsafe<{ count: number }[]>("SELECT count(*)::int AS count FROM outbox_message WHERE type = $1", type))[0].count;
  const aDocument = (userId: string, courseId: string, title: string) =>
    db.document.create({
      data: {
        id: randomUUID(),
        userId,
        courseId,
        title,
        fileName: `${title}.pdf`,
        fileSize: 1_000n,
        format: "PDF",
        mimeType: "application/pdf",
        storageKey: `documents/${userId}/${randomUUID()}.pdf`,
        documentType: "HANDOUT",
      },
    });

  it(`${CONSUMER_NAME}: a course deletion the database refuses is dead-lettered, and deletes the documents once after the repair`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const courseId = randomUUID();
    await aDocument(userId, courseId, "Handout 1");
    await aDocument(userId, courseId, "Handout 2");
    const event = createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Microbiology" } });
    const deletedBefore = await outboxCount("documents.document.deleted.v1");

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) =>
        startDomainEventsConsumer({ ...settings, db, deleteCourseDocuments: new DeleteCourseDocuments(new PrismaDocumentRepository(db)) }),
      breakCause: () => refuseWrites(db, "document", { operations: ["DELETE"], message: "document table is read-only (drill)" }),
      observe: async () => ({
        documents: await db.document.count({ where: { userId, courseId } }),
        documentDeletedEvents: (await outboxCount("documents.document.deleted.v1")) - deletedBefore,
      }),
    });

    const untouched = { documents: 2, documentDeletedEvents: 0 };
    // One DocumentDeleted per document (the worker removes each file on it): the deletion ran once.
    const deletedOnce = { documents: 0, documentDeletedEvents: 2 };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "courses.course.deleted.v1",
        attempts: 5,
        lastError: expect.stringContaining("document table is read-only (drill)"),
        states: untouchedUntilRepair(untouched, deletedOnce),
      }),
    );
  });

  /** The worker's consumer as worker.ts composes it, keyword-only search chunks (no embedding provider). */
  const startWorker = (settings: DrillConsumerSettings) => {
    const documents = new PrismaDocumentRepository(db);
    const scratch = join(folder, "scratch");
    const processDocument = new ProcessDocument({
      documents,
      storage,
      scratch: new LocalScratchSpace(scratch),
      extractor: createTextExtractor({ temporaryDirectory: scratch }),
      prepareChunks: (pages, signal) => prepareChunksOrKeywordOnly(pages, null, logger, signal),
      limits: { timeoutMs: 60_000, maxPages: 100, maxInflatedBytes: 10_000_000, maxTextChars: 1_000_000 },
      logger,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
    });
    return startExtractionWorkerConsumer({
      ...settings,
      db,
      processDocument,
      documents,
      storage,
      concurrency: 1,
      shutdown: new AbortController().signal,
      maxAttempts: DEFAULT_MAX_ATTEMPTS,
    });
  };

  it(`${WORKER_CONSUMER_NAME}: a document the database cannot start is dead-lettered, the hook fails it for the user, and a replay after the repair leaves it failed`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const document = await aDocument(userId, randomUUID(), "Syllabus");
    const event = createEvent("documents", userId, {
      $case: "documentUploaded",
      value: {
        documentId: document.id,
        courseId: document.courseId,
        title: document.title,
        documentType: document.documentType,
        format: document.format,
        storageKey: document.storageKey,
        searchable: undefined,
      },
    });
    const failedBefore = await outboxCount("documents.document.failed.v1");

    const drill = await runDeadLetterDrill({
      consumer: WORKER_CONSUMER_NAME,
      db,
      event,
      start: startWorker,
      // Only the start of processing is refused: the dead-letter hook's FAILED update still goes through.
      breakCause: () =>
        refuseWrites(db, "document", {
          operations: ["UPDATE"],
          when: "NEW.status = 'PROCESSING'",
          message: "document cannot start processing (drill)",
        }),
      observe: async () => ({
        document: await db.document.findUniqueOrThrow({ where: { id: document.id }, select: { status: true, failureReason: true, attempts: true } }),
        documentFailedEvents: (await outboxCount("documents.document.failed.v1")) - failedBefore,
      }),
      // The hook failed the document: a replay, repaired or not, finds it finished and is acked without reading it.
      replayBeforeRepair: false,
    });

    // ProcessDocument's own limit (DEFAULT_MAX_ATTEMPTS starts) plus two: the broker's deliveries before it gives up.
    const failedForTheUser = { document: { status: "FAILED", failureReason: GIVEN_UP_MESSAGE, attempts: 0 }, documentFailedEvents: 1 };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "documents.document.uploaded.v1",
        attempts: DEFAULT_MAX_ATTEMPTS + 2,
        lastError: expect.stringContaining("document cannot start processing (drill)"),
        states: {
          before: { document: { status: "PENDING", failureReason: null, attempts: 0 }, documentFailedEvents: 0, inbox: 0 },
          deadLettered: { ...failedForTheUser, inbox: 0 },
          replayed: { ...failedForTheUser, inbox: 1 },
          duplicate: { ...failedForTheUser, inbox: 1 },
        },
      }),
    );
  });

  it(`${WORKER_CONSUMER_NAME}: a file storage cannot delete is dead-lettered, and deleted once after the repair`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const storageKey = `documents/${userId}/handout.pdf`;
    await mkdir(dirname(join(folder, "storage", storageKey)), { recursive: true });
    await writeFile(join(folder, "storage", storageKey), "%PDF-1.4");
    const event = createEvent("documents", userId, {
      $case: "documentDeleted",
      value: { documentId: randomUUID(), courseId: randomUUID(), title: "Handout", storageKey },
    });

    const drill = await runDeadLetterDrill({
      consumer: WORKER_CONSUMER_NAME,
      db,
      event,
      start: startWorker,
      breakCause: () => takeDown(storage),
      observe: async () => ({ fileStored: existsSync(join(folder, "storage", storageKey)) }),
    });

    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "documents.document.deleted.v1",
        attempts: DEFAULT_MAX_ATTEMPTS + 2,
        lastError: "storage unavailable (drill)",
        states: untouchedUntilRepair({ fileStored: true }, { fileStored: false }),
      }),
    );
  });
});
