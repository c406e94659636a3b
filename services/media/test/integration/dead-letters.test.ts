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
import { FfmpegAudioProcessor } from "../../src/adapters/audio/ffmpeg-audio-processor";
import { PrismaImportJobRepository } from "../../src/adapters/db/prisma-import-job-repository";
import { PrismaNoteRepository } from "../../src/adapters/db/prisma-note-repository";
import { OutboundUrlPolicy } from "../../src/adapters/download/outbound-url-policy";
import { SafeHttpDownloader } from "../../src/adapters/download/safe-http-downloader";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { GIVEN_UP_MESSAGE, startImportWorkerConsumer, WORKER_CONSUMER_NAME } from "../../src/adapters/events/import-worker-consumer";
import { ExtractiveSummarizer } from "../../src/adapters/summary/extractive-summarizer";
import { PocketsphinxTranscriber } from "../../src/adapters/transcription/pocketsphinx-transcriber";
import { YtDlpVideoSource } from "../../src/adapters/video/yt-dlp-video-source";
import { CompleteJob } from "../../src/application/complete-job";
import { DeleteCourseNotes } from "../../src/application/delete-course-notes";
import { FailJob } from "../../src/application/fail-job";
import { DEFAULT_MAX_ATTEMPTS, ProcessImport } from "../../src/application/process-import";
import { ReportProgress } from "../../src/application/report-progress";
import { StartJob } from "../../src/application/start-job";
import { PrismaClient } from "../../src/generated/prisma/client";
import { mediaMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on media's consumer and on the media worker's (see runDeadLetterDrill). */
describe("media consumers: dead letters and replay", () => {
  let db: PrismaClient;
  let folder: string;
  let storage: StorageWithOutage;
  const logger = createLogger("media-dlq-test", "silent");

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("media_dlq", migrationSources(mediaMigrations)), 6));
    folder = await mkdtemp(join(tmpdir(), "media-dlq-"));
    storage = new StorageWithOutage({ rootDirectory: join(folder, "storage"), publicBaseUrl: "http://localhost/api/files" });
  });
  afterAll(async () => {
    await db?.$disconnect();
    await rm(folder, { recursive: true, force: true });
  });

  const outbox = async (type: string) =>
    db.$queryRawUnsafe<{ count: number }[]>("SELECT count(*)::int AS count FROM outbox_message WHERE type = $1", type);
  const eventsOfType = async (type: string) => (await outbox(type))[0].count;

  const aNote = (userId: string, courseId: string, title: string) =>
    db.note.create({ data: { id: randomUUID(), userId, courseId, title }, select: { id: true } });

  it(`${CONSUMER_NAME}: a course deletion the database refuses is dead-lettered, and deletes each note once after the repair`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const courseId = randomUUID();
    await aNote(userId, courseId, "Lecture 1");
    await aNote(userId, courseId, "Lecture 2");
    const event = createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Microbiology" } });

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) => startDomainEventsConsumer({ ...settings, db, deleteCourseNotes: new DeleteCourseNotes(new PrismaNoteRepository(db)) }),
      breakCause: () => refuseWrites(db, "note", { operations: ["DELETE"], message: "note table is read-only (drill)" }),
      observe: async () => ({
        notes: await db.note.count({ where: { userId, courseId } }),
        noteDeletedEvents: await eventsOfType("media.note.deleted.v1"),
      }),
    });

    const untouched = { notes: 2, noteDeletedEvents: 0 };
    // One NoteDeleted per note: the deletion ran to its end once, and the duplicate found the inbox row.
    const deletedOnce = { notes: 0, noteDeletedEvents: 2 };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "courses.course.deleted.v1",
        attempts: 5,
        lastError: expect.stringContaining("note table is read-only (drill)"),
        states: untouchedUntilRepair(untouched, deletedOnce),
      }),
    );
  });

  /** The worker's consumer as worker.ts composes it, with the pipeline's real adapters (this drill never reaches them). */
  const startWorker = (settings: DrillConsumerSettings) => {
    const jobs = new PrismaImportJobRepository(db);
    const policy = OutboundUrlPolicy.fromSetting(undefined);
    const audio = new FfmpegAudioProcessor();
    const failJob = new FailJob(jobs);
    const processImport = new ProcessImport({
      jobs,
      startJob: new StartJob(jobs),
      reportProgress: new ReportProgress(jobs),
      completeJob: new CompleteJob(jobs),
      failJob,
      storage,
      downloader: new SafeHttpDownloader({ policy }),
      videoSource: new YtDlpVideoSource({ policy, maxFileSizeBytes: 1_000_000 }),
      audio,
      transcriber: new PocketsphinxTranscriber({ audioProcessor: audio }),
      summarizer: new ExtractiveSummarizer(),
      logger,
      scratch: new LocalScratchSpace(join(folder, "scratch")),
    });
    return startImportWorkerConsumer({
      ...settings,
      db,
      processImport,
      failJob,
      storage,
      concurrency: 1,
      shutdown: new AbortController().signal,
      maxImportAttempts: DEFAULT_MAX_ATTEMPTS,
    });
  };

  it(`${WORKER_CONSUMER_NAME}: an import the database cannot start is dead-lettered, the hook fails it for the user, and a replay after the repair leaves it failed`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const note = await aNote(userId, randomUUID(), "Lecture 7");
    const job = await db.importJob.create({
      data: {
        id: randomUUID(),
        userId,
        noteId: note.id,
        type: "VIDEO_IMPORT",
        source: "VIDEO",
        title: "Lecture 7",
        sourceUrl: "https://video.example.com/watch?v=xyz",
      },
    });
    const event = createEvent("media", userId, {
      $case: "importRequested",
      value: { jobId: job.id, noteId: note.id, importType: "video_import", sourceUrl: job.sourceUrl ?? undefined, speedMultiplier: 2 },
    });
    const importFailedBefore = await eventsOfType("media.note.import_failed.v1");

    const drill = await runDeadLetterDrill({
      consumer: WORKER_CONSUMER_NAME,
      db,
      event,
      start: startWorker,
      // Only the start of processing is refused: the dead-letter hook's FAILED transition still goes through.
      breakCause: () =>
        refuseWrites(db, "import_job", { operations: ["UPDATE"], when: "NEW.status = 'IN_PROGRESS'", message: "import_job cannot start (drill)" }),
      observe: async () => ({
        job: await db.importJob.findUniqueOrThrow({ where: { id: job.id }, select: { status: true, errorMessage: true, attempts: true } }),
        note: (await db.note.findUniqueOrThrow({ where: { id: note.id } })).transcriptionStatus,
        importFailedEvents: (await eventsOfType("media.note.import_failed.v1")) - importFailedBefore,
      }),
      // The hook failed the job: a replay, repaired or not, finds it finished and is acked without processing it.
      replayBeforeRepair: false,
    });

    // The pipeline's own limit (DEFAULT_MAX_ATTEMPTS starts) plus two: the broker's deliveries before it gives up.
    const failedForTheUser = {
      job: { status: "FAILED", errorMessage: GIVEN_UP_MESSAGE, attempts: 0 },
      note: "FAILED",
      importFailedEvents: 1,
    };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "media.import.requested.v1",
        attempts: DEFAULT_MAX_ATTEMPTS + 2,
        lastError: expect.stringContaining("import_job cannot start (drill)"),
        states: {
          before: { job: { status: "PENDING", errorMessage: null, attempts: 0 }, note: "PENDING", importFailedEvents: 0, inbox: 0 },
          deadLettered: { ...failedForTheUser, inbox: 0 },
          replayed: { ...failedForTheUser, inbox: 1 },
          duplicate: { ...failedForTheUser, inbox: 1 },
        },
      }),
    );
  });

  it(`${WORKER_CONSUMER_NAME}: a note's files that storage cannot delete are dead-lettered, and deleted once after the repair`, async () => {
    const userId = `user-${uniqueSuffix()}`;
    const keys = [`audio/${userId}/lecture.mp3`, `attachments/${userId}/slide.png`];
    for (const key of keys) {
      await mkdir(dirname(join(folder, "storage", key)), { recursive: true });
      await writeFile(join(folder, "storage", key), "bytes");
    }
    const event = createEvent("media", userId, {
      $case: "noteDeleted",
      value: { noteId: randomUUID(), courseId: randomUUID(), title: "Lecture 8", storageKeys: keys },
    });

    const drill = await runDeadLetterDrill({
      consumer: WORKER_CONSUMER_NAME,
      db,
      event,
      start: startWorker,
      breakCause: () => takeDown(storage),
      observe: async () => ({ files: keys.filter((key) => existsSync(join(folder, "storage", key))) }),
    });

    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "media.note.deleted.v1",
        attempts: DEFAULT_MAX_ATTEMPTS + 2,
        lastError: "storage unavailable (drill)",
        states: untouchedUntilRepair({ files: keys }, { files: [] }),
      }),
    );
  });
});
