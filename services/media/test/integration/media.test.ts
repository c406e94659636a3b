import { randomUUID } from "node:crypto";
import { indexing, media as api } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher } from "@study/events";
import { createClient } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { fixedClock } from "@study/platform/clock";
import { migrationSources, startService } from "@study/runtime";
import { captureEvents, createTestDatabase, eventually, startFakeCourses, testRabbitMqUrl, uniqueSuffix, type EventCapture } from "@study/testkit";
import { PrismaImportJobRepository } from "../../src/adapters/db/prisma-import-job-repository";
import { HOST_REFUSED_MESSAGE } from "../../src/adapters/download/outbound-url-policy";
import { PrismaNoteRepository } from "../../src/adapters/db/prisma-note-repository";
import { CompleteJob } from "../../src/application/complete-job";
import { FailJob } from "../../src/application/fail-job";
import { ReportProgress } from "../../src/application/report-progress";
import { StartJob } from "../../src/application/start-job";
import type { MediaConfig } from "../../src/config";
import type { PrismaClient } from "../../src/generated/prisma/client";
import { mediaService } from "../../src/service";

const { ImportType, JobStatus, JobSource, TranscriptionStatus, UserNoteContentType, JobSortField, SortOrder } = api;

describe("media service over gRPC, with PostgreSQL and RabbitMQ", () => {
  let service: Awaited<ReturnType<typeof startService<PrismaClient, MediaConfig>>>;
  let courses: Awaited<ReturnType<typeof startFakeCourses>>;
  /** A course the fake courses service says belongs to someone else. */
  const foreignCourse = randomUUID();
  let client: ReturnType<typeof createClient<api.MediaServiceClient>>;
  let source: ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>;
  let capture: EventCapture;
  let exchange: string;
  let pipeline: { start: StartJob; progress: ReportProgress; complete: CompleteJob; fail: FailJob };

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("media", migrationSources(mediaService));
    exchange = `test.${uniqueSuffix()}`;
    capture = await captureEvents(testRabbitMqUrl(), exchange, "media.#");
    courses = await startFakeCourses(new Set([foreignCourse]));
    service = await startService(mediaService, {
      handleSignals: false,
      env: {
        DATABASE_URL: databaseUrl,
        RABBITMQ_URL: testRabbitMqUrl(),
        GRPC_PORT: "0",
        EVENT_EXCHANGE: exchange,
        LOG_LEVEL: "silent",
        MEDIA_DOWNLOAD_ALLOWLIST: "127.0.0.1:9",
        COURSES_GRPC_ADDRESS: courses.address,
      },
    });
    client = createClient(api.MediaServiceClient, api.MediaServiceService, `127.0.0.1:${service.grpcPort}`);
    source = createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, `127.0.0.1:${service.grpcPort}`);
    // The pipeline's use cases, as the media worker will run them (not exposed over gRPC).
    const jobs = new PrismaImportJobRepository(service.db);
    pipeline = { start: new StartJob(jobs), progress: new ReportProgress(jobs), complete: new CompleteJob(jobs), fail: new FailJob(jobs) };
  });

  afterAll(async () => {
    client.close();
    source.close();
    await service.lifecycle.stop();
    await capture.close();
    await courses?.close();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code, details: error.details }),
    );
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => error,
    );
  const notFound = { kind: "not_found", code: "NOT_FOUND" };
  const user = () => `user-${uniqueSuffix()}`;
  const eventsOf = (type: string, predicate: (payload: Record<string, unknown>) => boolean) =>
    capture.events.filter((event) => event.type === type && predicate({ ...event.payload!.value }));
  const eventFor = (type: string, predicate: (payload: Record<string, unknown>) => boolean) => eventually(async () => eventsOf(type, predicate)[0]);

  async function importVideo(userId: string, title = "Lecture 1", courseId: string = randomUUID()) {
    const response = await client.createImport({
      userId,
      type: ImportType.IMPORT_TYPE_VIDEO_IMPORT,
      title,
      courseId,
      sourceUrl: "https://video.example.com/watch?v=abc",
    });
    return { note: response.note!, job: response.job! };
  }

  const transcription = {
    transcript: "Enzymes lower the activation energy. They are proteins.",
    summary: "Enzymes are proteins that speed up reactions.",
    segments: [
      { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5 },
      { text: "They are proteins.", startTime: 3.5, endTime: 5.25, speaker: "Lecturer" },
    ],
    duration: 5.25,
    language: "en",
    confidence: 0.91,
  };

  it("creates the note and the job PENDING together, and queues the import work with a started event", async () => {
    const userId = user();
    const courseId = randomUUID();
    const { note, job } = await (async () => {
      const response = await client.createImport({
        userId,
        type: ImportType.IMPORT_TYPE_AUDIO_UPLOAD,
        title: "  Recording 12  ",
        courseId,
        storageKey: `uploads/${userId}/rec.m4a`,
        speedMultiplier: 1,
        mimeType: "audio/x-m4a",
        originalFilename: "rec.m4a",
        fileSize: 4096,
      });
      return { note: response.note!, job: response.job! };
    })();
    expect(note).toMatchObject({
      userId,
      courseId,
      title: "Recording 12",
      content: undefined,
      transcriptionStatus: TranscriptionStatus.TRANSCRIPTION_STATUS_PENDING,
      metadata: { source: "upload", mimeType: "audio/m4a", originalFilename: "rec.m4a", fileSize: 4096 },
      userNotes: [],
    });
    expect(job).toMatchObject({
      userId,
      noteId: note.id,
      type: ImportType.IMPORT_TYPE_AUDIO_UPLOAD,
      source: JobSource.JOB_SOURCE_UPLOAD,
      title: "Recording 12",
      status: JobStatus.JOB_STATUS_PENDING,
      progress: 0,
      attempts: 0,
      completedAt: undefined,
    });

    const requested = await capture.next("media.import.requested.v1");
    expect(eventsOf("media.import.requested.v1", (p) => p.jobId === job.id)[0]).toMatchObject({
      source: "media",
      userId,
      payload: {
        $case: "importRequested",
        value: {
          jobId: job.id,
          noteId: note.id,
          importType: "audio_upload",
          storageKey: `uploads/${userId}/rec.m4a`,
          speedMultiplier: 1,
          mimeType: "audio/m4a",
          originalFilename: "rec.m4a",
          fileSize: 4096,
        },
      },
    });
    expect(requested).toBeDefined();
    const started = await eventFor("media.note.import_started.v1", (p) => p.noteId === note.id);
    expect(started.payload).toEqual({
      $case: "noteImportStarted",
      value: {
        noteId: note.id,
        jobId: job.id,
        courseId,
        title: "Recording 12",
        importType: "audio_upload",
        searchable: {
          type: indexing.SearchableType.SEARCHABLE_TYPE_NOTE,
          id: note.id,
          userId,
          courseId,
          title: "Recording 12",
          keywords: [],
          description: "",
          content: "",
          status: "PROCESSING",
          difficulty: undefined,
          metadata: { transcriptionStatus: "PENDING", sourceType: "upload" },
          createdAt: note.createdAt,
          updatedAt: note.updatedAt,
        },
      },
    });
  });

  it("refuses an invalid import with field details and stores nothing", async () => {
    const userId = user();
    expect(
      await refusal(
        client.createImport({
          userId,
          type: ImportType.IMPORT_TYPE_VIDEO_IMPORT,
          title: "",
          courseId: randomUUID(),
          sourceUrl: "javascript:alert(1)",
          speedMultiplier: 3,
        }),
      ),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "title", message: "must not be empty" },
        { field: "url", message: "must be a valid http(s) URL" },
        { field: "speedMultiplier", message: "must be 1 or 2" },
      ],
    });
    expect(
      await refusal(
        client.createImport({
          userId,
          type: ImportType.IMPORT_TYPE_AUDIO_UPLOAD,
          title: "Big",
          courseId: randomUUID(),
          storageKey: "k",
          speedMultiplier: 2,
          fileSize: 151 * 1024 * 1024,
        }),
      ),
    ).toMatchObject({ kind: "too_large", code: "FILE_TOO_LARGE" });
    // An audio URL the service may not download from (SSRF policy; MEDIA_DOWNLOAD_ALLOWLIST names 127.0.0.1:9 only),
    // or one whose host does not resolve: one answer for all, naming no address and not telling them apart (#29).
    const refusals = [];
    for (const sourceUrl of [
      "http://10.1.2.3/lecture.mp3",
      "http://127.0.0.1:8080/lecture.mp3",
      "http://localhost:8080/lecture.mp3",
      "http://169.254.169.254/latest/meta-data",
      "http://no-such-host.invalid/lecture.mp3",
    ]) {
      const refused = await failure(
        client.createImport({
          userId,
          type: ImportType.IMPORT_TYPE_AUDIO_IMPORT,
          title: "Audio",
          courseId: randomUUID(),
          sourceUrl,
          speedMultiplier: 2,
        }),
      );
      refusals.push({ kind: refused.kind, code: refused.code, message: refused.message, details: refused.details });
    }
    for (const refused of refusals) {
      expect(refused).toEqual({
        kind: "validation",
        code: "URL_NOT_ALLOWED",
        message: HOST_REFUSED_MESSAGE,
        details: [{ field: "url", message: HOST_REFUSED_MESSAGE }],
      });
    }
    expect((await client.listNotes({ userId })).notes).toEqual([]);
    expect((await client.listJobs({ userId, status: 0, source: 0, sortBy: 0, sortOrder: 0 })).jobs).toEqual([]);
  });

  it("lists notes newest first, by course, with pages; and gets one with its user notes", async () => {
    const userId = user();
    const courseA = randomUUID();
    const courseB = randomUUID();
    const first = await importVideo(userId, "First", courseA);
    const second = await importVideo(userId, "Second", courseB);
    const third = await importVideo(userId, "Third", courseA);
    await importVideo(user(), "Someone else's", courseA);

    const all = await client.listNotes({ userId });
    expect(all.notes.map((n) => n.title)).toEqual(["Third", "Second", "First"]);
    expect(all.page).toEqual({ limit: 20, offset: 0, total: 3, hasMore: false });
    expect(all.notes[0].transcriptSegments).toEqual([]);

    const ofA = await client.listNotes({ userId, courseId: courseA });
    expect(ofA.notes.map((n) => n.id)).toEqual([third.note.id, first.note.id]);
    const page = await client.listNotes({ userId, page: { limit: 1, offset: 1 } });
    expect(page.notes.map((n) => n.id)).toEqual([second.note.id]);
    expect(page.page).toEqual({ limit: 1, offset: 1, total: 3, hasMore: true });
    expect((await client.listNotes({ userId, courseId: "not-a-course" })).notes).toEqual([]);
    expect(await refusal(client.listNotes({ userId, page: { limit: 101, offset: 0 } }))).toMatchObject({ code: "VALIDATION_ERROR" });

    const { note } = await client.getNote({ userId, noteId: first.note.id });
    expect(note).toMatchObject({ id: first.note.id, title: "First", transcriptSegments: [], attachments: [], userNotes: [] });
  });

  it("replaces user notes sorted by timestamp, renames, and announces both; refuses invalid entries by index", async () => {
    const userId = user();
    const { note } = await importVideo(userId);
    const { note: updated } = await client.updateUserNotes({
      userId,
      noteId: note.id,
      userNotes: [
        { timestamp: 95.5, content: "Key formula", contentType: UserNoteContentType.USER_NOTE_CONTENT_TYPE_TEXT },
        { timestamp: 12, content: "https://example.com/slides", contentType: UserNoteContentType.USER_NOTE_CONTENT_TYPE_URL },
      ],
    });
    expect(updated!.userNotes.map((u) => u.timestamp)).toEqual([12, 95.5]);
    const updatedEvent = await eventFor("media.note.updated.v1", (p) => p.noteId === note.id);
    expect(updatedEvent.payload).toMatchObject({
      value: {
        title: "Lecture 1",
        transcriptionStatus: "PENDING",
        userNotes: [
          { timestamp: 12, contentType: "url" },
          { timestamp: 95.5, contentType: "text" },
        ],
      },
    });

    expect(
      await refusal(
        client.updateUserNotes({
          userId,
          noteId: note.id,
          userNotes: [
            { timestamp: 1, content: "ok", contentType: UserNoteContentType.USER_NOTE_CONTENT_TYPE_FILE },
            { timestamp: -2, content: "x".repeat(1001), contentType: UserNoteContentType.USER_NOTE_CONTENT_TYPE_UNSPECIFIED },
          ],
        }),
      ),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "userNotes.1.timestamp", message: "must be a number of seconds >= 0" },
        { field: "userNotes.1.content", message: "must be at most 1000 characters" },
        { field: "userNotes.1.contentType", message: "must be one of text, url, file" },
      ],
    });
    expect((await client.getNote({ userId, noteId: note.id })).note!.userNotes).toHaveLength(2);

    const { note: renamed } = await client.renameNote({ userId, noteId: note.id, title: "  Lecture 1: Enzymes " });
    expect(renamed).toMatchObject({ title: "Lecture 1: Enzymes", userNotes: updated!.userNotes });
    expect(await refusal(client.renameNote({ userId, noteId: note.id, title: "x".repeat(256) }))).toMatchObject({
      details: [{ field: "title", message: "must be at most 255 characters" }],
    });
    const renamedEvent = await eventFor("media.note.updated.v1", (p) => p.noteId === note.id && p.title === "Lecture 1: Enzymes");
    // Search sees the note after the rename, at a version later than the user notes' change.
    const searchableOf = (event: typeof renamedEvent) => (event.payload?.value as { searchable: indexing.Searchable }).searchable;
    expect(searchableOf(updatedEvent)).toMatchObject({
      title: "Lecture 1",
      content: "https://example.com/slides\nKey formula",
      status: "PROCESSING",
    });
    expect(searchableOf(renamedEvent)).toMatchObject({
      title: "Lecture 1: Enzymes",
      content: "https://example.com/slides\nKey formula",
      updatedAt: renamed!.updatedAt,
    });
    expect(searchableOf(renamedEvent).updatedAt!.getTime()).toBeGreaterThan(searchableOf(updatedEvent).updatedAt!.getTime());
  });

  it("answers NOT_FOUND for another user's notes and jobs, for every operation", async () => {
    const owner = user();
    const stranger = user();
    const { note, job } = await importVideo(owner);
    for (const call of [
      () => client.getNote({ userId: stranger, noteId: note.id }),
      () => client.updateUserNotes({ userId: stranger, noteId: note.id, userNotes: [] }),
      () => client.renameNote({ userId: stranger, noteId: note.id, title: "Mine" }),
      () => client.deleteNote({ userId: stranger, noteId: note.id }),
      () => client.getJob({ userId: stranger, jobId: job.id }),
      () => client.cancelJob({ userId: stranger, jobId: job.id }),
      () => client.deleteJob({ userId: stranger, jobId: job.id }),
      () => client.getNote({ userId: owner, noteId: "not-a-uuid" }),
      () => client.getJob({ userId: owner, jobId: randomUUID() }),
    ]) {
      expect(await refusal(call())).toMatchObject(notFound);
    }
    expect((await client.listNotes({ userId: stranger })).notes).toEqual([]);
    expect((await client.getJobStats({ userId: stranger })).total).toBe(0);
    expect((await client.getNote({ userId: owner, noteId: note.id })).note?.title).toBe("Lecture 1");
    expect((await client.getJob({ userId: owner, jobId: job.id })).job?.status).toBe(JobStatus.JOB_STATUS_PENDING);
  });

  it("refuses an import into someone else's course (the courses service answers NOT_FOUND) and stores nothing", async () => {
    const userId = user();
    const refused = await refusal(
      client.createImport({
        userId,
        type: ImportType.IMPORT_TYPE_VIDEO_IMPORT,
        title: "Mine",
        courseId: foreignCourse,
        sourceUrl: "https://video.example.com/v",
      }),
    );
    expect(refused).toMatchObject(notFound);
    expect((await client.listNotes({ userId })).notes).toEqual([]);
  });

  /** Every message of a WatchImportJob stream until it ends (or the error it ends with). */
  function watch(userId: string, jobId: string) {
    const call = client.raw.watchImportJob({ userId, jobId });
    const received: api.WatchImportJobResponse[] = [];
    const first = new Promise<void>((resolve) => call.once("data", () => resolve()));
    call.on("data", (message: api.WatchImportJobResponse) => received.push(message));
    const ended = new Promise<{ code: number; details?: string }>((resolve) => {
      call.on("status", (status) => resolve(status));
      call.on("error", () => undefined);
    });
    return { received, first, ended, call };
  }

  it("pushes a job's progress (WatchImportJob): the current state, then every recorded change in order, ending with the final state", async () => {
    const userId = user();
    const { job } = await importVideo(userId, "Streamed");
    const stream = watch(userId, job.id);
    await stream.first;
    // Changes recorded back to back, each one reaching the stream (no sampling).
    await pipeline.start.execute(job.id);
    await pipeline.progress.execute(job.id, "TRANSCRIPTION", 25);
    await pipeline.progress.execute(job.id, "TRANSCRIPTION", 60);
    await pipeline.progress.execute(job.id, "CONTENT_PROCESSING", 80);
    await pipeline.progress.execute(job.id, "NOTE_CREATION", 95);
    await pipeline.complete.execute(job.id, transcription);
    expect((await stream.ended).code).toBe(0);
    const { JOB_STATUS_PENDING: pending, JOB_STATUS_IN_PROGRESS: running, JOB_STATUS_COMPLETED: completed } = JobStatus;
    const { PROGRESS_STAGE_UNSPECIFIED: none, PROGRESS_STAGE_SETUP: setup, PROGRESS_STAGE_TRANSCRIPTION: transcribing } = api.ProgressStage;
    const { PROGRESS_STAGE_CONTENT_PROCESSING: content, PROGRESS_STAGE_NOTE_CREATION: creating } = api.ProgressStage;
    expect(stream.received.map((message) => [message.status, message.stage, message.progress])).toEqual([
      [pending, none, 0],
      [running, setup, 0],
      [running, transcribing, 25],
      [running, transcribing, 60],
      [running, content, 80],
      [running, creating, 95],
      [completed, creating, 100],
    ]);

    // A finished job: its final state, and the stream ends; a failure carries its message.
    const { job: other } = await importVideo(userId, "Failing");
    await pipeline.fail.execute(other.id, "Download failed: gone");
    const finished = watch(userId, other.id);
    expect((await finished.ended).code).toBe(0);
    expect(finished.received).toEqual([{ status: JobStatus.JOB_STATUS_FAILED, progress: 0, stage: none, errorMessage: "Download failed: gone" }]);
  });

  it("answers WatchImportJob with NOT_FOUND for another user's job, and stops when the caller cancels", async () => {
    const owner = user();
    const { job } = await importVideo(owner, "Private");
    const stranger = watch(user(), job.id);
    expect(await stranger.ended).toMatchObject({ code: 5 });
    expect(stranger.received).toEqual([]);

    const leaving = watch(owner, job.id);
    await leaving.first;
    leaving.call.cancel();
    expect(await leaving.ended).toMatchObject({ code: 1 });
    // The job goes on without its watcher.
    expect((await pipeline.start.execute(job.id)).job.status).toBe("IN_PROGRESS");
  });

  it("runs an import to completion through the pipeline's use cases: progress, transcript, segments, summary, event", async () => {
    const userId = user();
    const { note, job } = await importVideo(userId, "Enzymes");

    const { job: started, note: processing } = await pipeline.start.execute(job.id);
    expect(started).toMatchObject({
      status: "IN_PROGRESS",
      attempts: 1,
      progress: 0,
      stage: "SETUP",
      sourceUrl: "https://video.example.com/watch?v=abc",
    });
    expect(processing?.transcriptionStatus).toBe("PROCESSING");
    expect(await pipeline.progress.execute(job.id, "TRANSCRIPTION", 50)).toMatchObject({ progress: 50, stage: "TRANSCRIPTION" });
    // A late report from an earlier stage changes nothing.
    expect((await pipeline.progress.execute(job.id, "SETUP", 20)).progress).toBe(50);
    const { job: viewed } = await client.getJob({ userId, jobId: job.id });
    expect(viewed).toMatchObject({
      status: JobStatus.JOB_STATUS_IN_PROGRESS,
      progress: 50,
      note: { status: TranscriptionStatus.TRANSCRIPTION_STATUS_PROCESSING },
    });

    const completed = await pipeline.complete.execute(job.id, transcription);
    expect(completed.job).toMatchObject({ status: "COMPLETED", progress: 100, completedAt: expect.any(Date) });

    const { note: done } = await client.getNote({ userId, noteId: note.id });
    expect(done).toMatchObject({
      transcriptionStatus: TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED,
      content: transcription.transcript,
      summary: transcription.summary,
      metadata: {
        source: "video",
        originalUrl: "https://video.example.com/watch?v=abc",
        duration: 5.25,
        wordCount: 8,
        language: "en",
        confidence: 0.91,
      },
    });
    expect(done!.transcriptSegments.map(({ text, startTime, endTime, speaker, noteId }) => ({ text, startTime, endTime, speaker, noteId }))).toEqual([
      { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, speaker: undefined, noteId: note.id },
      { text: "They are proteins.", startTime: 3.5, endTime: 5.25, speaker: "Lecturer", noteId: note.id },
    ]);
    const { job: finished } = await client.getJob({ userId, jobId: job.id });
    expect(finished).toMatchObject({
      status: JobStatus.JOB_STATUS_COMPLETED,
      progress: 100,
      completedAt: expect.any(Date),
      note: {
        id: note.id,
        title: "Enzymes",
        status: TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED,
        duration: 5.25,
        summary: transcription.summary,
      },
    });

    const transcribed = await eventFor("media.note.transcribed.v1", (p) => p.noteId === note.id);
    expect(transcribed).toMatchObject({ source: "media", userId });
    expect(transcribed.payload).toEqual({
      $case: "noteTranscribed",
      value: {
        noteId: note.id,
        jobId: job.id,
        courseId: note.courseId,
        title: "Enzymes",
        transcript: transcription.transcript,
        summary: transcription.summary,
        segments: [
          { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, speaker: undefined },
          { text: "They are proteins.", startTime: 3.5, endTime: 5.25, speaker: "Lecturer" },
        ],
        duration: 5.25,
        language: "en",
        searchable: expect.objectContaining({
          type: indexing.SearchableType.SEARCHABLE_TYPE_NOTE,
          id: note.id,
          title: "Enzymes",
          description: transcription.summary,
          content: transcription.transcript,
          status: "COMPLETED",
          metadata: { transcriptionStatus: "COMPLETED", duration: "5.25", sourceType: "video" },
          createdAt: note.createdAt,
        }),
      },
    });
    const transcribedVersion = (transcribed.payload?.value as { searchable: indexing.Searchable }).searchable.updatedAt!;
    expect(transcribedVersion.getTime()).toBeGreaterThan(note.updatedAt!.getTime());
    expect(transcribedVersion).toEqual((await client.getNote({ userId, noteId: note.id })).note!.updatedAt);

    // Finished: no second completion, no failure, no cancellation; a redelivered start is dropped.
    // One at a time: a refusal started early could reject before anything listens (an unhandled rejection).
    for (const attempt of [
      () => pipeline.complete.execute(job.id, transcription),
      () => pipeline.fail.execute(job.id, "late"),
      () => pipeline.start.execute(job.id),
      () => pipeline.progress.execute(job.id, "NOTE_CREATION", 99),
      () => client.cancelJob({ userId, jobId: job.id }),
    ]) {
      expect(await refusal(attempt())).toMatchObject({ kind: "precondition", code: "JOB_ALREADY_FINISHED" });
    }
  });

  it("stores each segment's recogniser confidence and returns it from the repository and GetNote; a segment without one has none", async () => {
    const userId = user();
    const { note, job } = await importVideo(userId, "Scored");
    await pipeline.start.execute(job.id);
    await pipeline.complete.execute(job.id, {
      ...transcription,
      segments: [
        { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, confidence: 0.875 },
        { text: "They are proteins.", startTime: 3.5, endTime: 4.5 },
        { text: "Mumbled.", startTime: 4.5, endTime: 5.25, confidence: 0 },
      ],
    });

    const columns = await service.db.$queryRaw<{ position: number; confidence: number | null }[]>`
      SELECT position, confidence FROM transcript_segment WHERE note_id = ${note.id}::uuid ORDER BY position`;
    expect(columns).toEqual([
      { position: 0, confidence: 0.875 },
      { position: 1, confidence: null },
      { position: 2, confidence: 0 },
    ]);

    const details = await new PrismaNoteRepository(service.db).findOwnedDetails(userId, note.id);
    expect(details!.segments.map((segment) => segment.confidence)).toEqual([0.875, undefined, 0]);
    expect("confidence" in details!.segments[1]).toBe(false);

    const { note: read } = await client.getNote({ userId, noteId: note.id });
    expect(read!.transcriptSegments.map(({ text, confidence }) => ({ text, confidence }))).toEqual([
      { text: "Enzymes lower the activation energy.", confidence: 0.875 },
      { text: "They are proteins.", confidence: undefined },
      { text: "Mumbled.", confidence: 0 },
    ]);
    // 0 is a score (the engine heard nothing it trusts), not a missing one: it must survive proto3's optional field.
    expect(read!.transcriptSegments[2].confidence).toBe(0);
    expect(read!.transcriptSegments[1].confidence).toBeUndefined();
  });

  it("builds a note's events from the note as stored: a rename while the import ran reaches NoteTranscribed, at a later version", async () => {
    const userId = user();
    const { note, job } = await importVideo(userId, "Before");
    await pipeline.start.execute(job.id);
    const jobs = new PrismaImportJobRepository(service.db);
    // The worker read the job and its note, then the user renamed the note before the worker finished.
    const workersRead = (await jobs.findWithNote(job.id))!;
    const { note: renamed } = await client.renameNote({ userId, noteId: note.id, title: "After" });
    // The worker's clock is behind the rename's.
    const behind = fixedClock(workersRead.note!.updatedAt.toISOString());
    await new CompleteJob({ findWithNote: async () => workersRead, saveTransition: (t, v) => jobs.saveTransition(t, v) }, behind).execute(
      job.id,
      transcription,
    );

    const { note: stored } = await client.getNote({ userId, noteId: note.id });
    expect(stored).toMatchObject({
      title: "After",
      content: transcription.transcript,
      transcriptionStatus: TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED,
    });
    expect(stored!.updatedAt!.getTime()).toBeGreaterThan(renamed!.updatedAt!.getTime());
    const transcribed = await eventFor("media.note.transcribed.v1", (p) => p.noteId === note.id);
    expect(transcribed.payload?.value).toMatchObject({
      title: "After",
      searchable: { title: "After", content: transcription.transcript, status: "COMPLETED", updatedAt: stored!.updatedAt },
    });
  });

  it("fails an import: job FAILED with the error, note FAILED, NoteImportFailed for the user", async () => {
    const userId = user();
    const { note, job } = await importVideo(userId, "Private video");
    expect(await refusal(pipeline.complete.execute(job.id, transcription))).toMatchObject({ code: "JOB_NOT_STARTED" });
    await pipeline.start.execute(job.id);
    const restarted = await pipeline.start.execute(job.id);
    expect(restarted.job.attempts).toBe(2);
    await pipeline.fail.execute(job.id, "The video is private or unavailable");

    const { job: failed } = await client.getJob({ userId, jobId: job.id });
    expect(failed).toMatchObject({
      status: JobStatus.JOB_STATUS_FAILED,
      errorMessage: "The video is private or unavailable",
      completedAt: undefined,
    });
    expect((await client.getNote({ userId, noteId: note.id })).note?.transcriptionStatus).toBe(TranscriptionStatus.TRANSCRIPTION_STATUS_FAILED);
    const event = await eventFor("media.note.import_failed.v1", (p) => p.noteId === note.id);
    expect(event.payload).toEqual({
      $case: "noteImportFailed",
      value: {
        noteId: note.id,
        jobId: job.id,
        courseId: note.courseId,
        title: "Private video",
        errorMessage: "The video is private or unavailable",
        searchable: expect.objectContaining({
          id: note.id,
          title: "Private video",
          status: "FAILED",
          metadata: { transcriptionStatus: "FAILED", sourceType: "video" },
        }),
      },
    });
  });

  it("cancels pending and running jobs (note FAILED), refuses finished ones, and deletes only finished jobs", async () => {
    const userId = user();
    const pending = await importVideo(userId, "Pending");
    const running = await importVideo(userId, "Running");
    await pipeline.start.execute(running.job.id);

    expect(await refusal(client.deleteJob({ userId, jobId: pending.job.id }))).toEqual({
      kind: "precondition",
      code: "JOB_ACTIVE",
      details: [],
    });
    expect(await refusal(client.deleteJob({ userId, jobId: running.job.id }))).toMatchObject({ code: "JOB_ACTIVE" });

    const { job: cancelled } = await client.cancelJob({ userId, jobId: pending.job.id });
    expect(cancelled).toMatchObject({
      status: JobStatus.JOB_STATUS_CANCELLED,
      errorMessage: "Cancelled by user",
      note: { status: TranscriptionStatus.TRANSCRIPTION_STATUS_FAILED },
    });
    await client.cancelJob({ userId, jobId: running.job.id });
    expect((await client.getNote({ userId, noteId: running.note.id })).note?.transcriptionStatus).toBe(
      TranscriptionStatus.TRANSCRIPTION_STATUS_FAILED,
    );
    expect(await refusal(client.cancelJob({ userId, jobId: pending.job.id }))).toMatchObject({ kind: "precondition", code: "JOB_ALREADY_FINISHED" });

    // Search learns the notes' new status.
    for (const { note } of [pending, running]) {
      const cancelledEvent = await eventFor("media.note.updated.v1", (p) => p.noteId === note.id);
      expect(cancelledEvent.payload?.value).toMatchObject({ transcriptionStatus: "FAILED", searchable: { id: note.id, status: "FAILED" } });
    }

    // The worker learns of the cancellation at its next progress report, and a queued job is never started.
    expect(await refusal(pipeline.progress.execute(running.job.id, "TRANSCRIPTION", 40))).toMatchObject({ code: "JOB_ALREADY_FINISHED" });
    expect(await refusal(pipeline.start.execute(pending.job.id))).toMatchObject({ code: "JOB_ALREADY_FINISHED" });

    await client.deleteJob({ userId, jobId: pending.job.id });
    expect(await refusal(client.getJob({ userId, jobId: pending.job.id }))).toMatchObject(notFound);
    // The job goes, its note stays.
    expect((await client.getNote({ userId, noteId: pending.note.id })).note?.id).toBe(pending.note.id);
  });

  it("retries a cancelled or a failed import with what it kept: PENDING again, the work queued again; refuses any other (#29)", async () => {
    const userId = user();
    const cancelledImport = await importVideo(userId, "Cancelled");
    await client.cancelJob({ userId, jobId: cancelledImport.job.id });
    const requestsOf = (jobId: string) => eventsOf("media.import.requested.v1", (p) => p.jobId === jobId);
    await eventually(async () => requestsOf(cancelledImport.job.id).length === 1);

    const { job: retried } = await client.retryJob({ userId, jobId: cancelledImport.job.id });
    expect(retried).toMatchObject({
      id: cancelledImport.job.id,
      status: JobStatus.JOB_STATUS_PENDING,
      progress: 0,
      errorMessage: undefined,
      attempts: 0,
      note: { id: cancelledImport.note.id, status: TranscriptionStatus.TRANSCRIPTION_STATUS_PENDING },
    });
    // The work message again, with what the job kept, and the note's start announced again (search: PENDING).
    await eventually(async () => requestsOf(cancelledImport.job.id).length === 2);
    expect(requestsOf(cancelledImport.job.id)[1].payload?.value).toEqual(requestsOf(cancelledImport.job.id)[0].payload?.value);
    await eventually(async () => eventsOf("media.note.import_started.v1", (p) => p.noteId === cancelledImport.note.id).length === 2);
    // A PENDING job is not retried again; the worker can run it.
    expect(await refusal(client.retryJob({ userId, jobId: cancelledImport.job.id }))).toMatchObject({ kind: "conflict", code: "JOB_NOT_RETRYABLE" });
    expect((await pipeline.start.execute(cancelledImport.job.id)).job).toMatchObject({ status: "IN_PROGRESS", attempts: 1 });
    expect(await refusal(client.retryJob({ userId, jobId: cancelledImport.job.id }))).toMatchObject({ kind: "conflict", code: "JOB_NOT_RETRYABLE" });

    // A failed import after several attempts starts over with its own attempts.
    const failedImport = await importVideo(userId, "Failed");
    await pipeline.start.execute(failedImport.job.id);
    await pipeline.start.execute(failedImport.job.id);
    await pipeline.fail.execute(failedImport.job.id, "Download failed: timeout");
    expect((await client.retryJob({ userId, jobId: failedImport.job.id })).job).toMatchObject({
      status: JobStatus.JOB_STATUS_PENDING,
      attempts: 0,
      errorMessage: undefined,
    });
    expect((await client.getNote({ userId, noteId: failedImport.note.id })).note?.transcriptionStatus).toBe(
      TranscriptionStatus.TRANSCRIPTION_STATUS_PENDING,
    );

    // A completed import, another user's job, a job whose note was deleted.
    const completedImport = await importVideo(userId, "Completed");
    await pipeline.start.execute(completedImport.job.id);
    await pipeline.complete.execute(completedImport.job.id, transcription);
    expect(await refusal(client.retryJob({ userId, jobId: completedImport.job.id }))).toMatchObject({ kind: "conflict", code: "JOB_NOT_RETRYABLE" });
    expect(await refusal(client.retryJob({ userId: user(), jobId: failedImport.job.id }))).toMatchObject(notFound);
    expect(await refusal(client.retryJob({ userId, jobId: "not-a-uuid" }))).toMatchObject(notFound);
    const orphan = await importVideo(userId, "Orphan");
    await client.cancelJob({ userId, jobId: orphan.job.id });
    await client.deleteNote({ userId, noteId: orphan.note.id });
    expect(await refusal(client.retryJob({ userId, jobId: orphan.job.id }))).toMatchObject({ kind: "conflict", code: "JOB_NOT_RETRYABLE" });
  });

  it("filters, sorts and pages jobs, each with its note; and counts them", async () => {
    const userId = user();
    const a = await importVideo(userId, "A");
    const b = await client.createImport({
      userId,
      type: ImportType.IMPORT_TYPE_AUDIO_IMPORT,
      title: "B",
      courseId: randomUUID(),
      sourceUrl: "http://127.0.0.1:9/b.mp3",
      speedMultiplier: 2,
    });
    const c = await importVideo(userId, "C");
    const d = await importVideo(userId, "D");
    await pipeline.start.execute(a.job.id);
    await pipeline.complete.execute(a.job.id, transcription);
    await pipeline.start.execute(c.job.id);
    await pipeline.fail.execute(c.job.id, "Network timeout");
    await pipeline.start.execute(d.job.id);
    await pipeline.complete.execute(d.job.id, transcription);

    const list = (request: Partial<api.ListJobsRequest>) => client.listJobs({ userId, status: 0, source: 0, sortBy: 0, sortOrder: 0, ...request });
    const titles = async (request: Partial<api.ListJobsRequest>) => (await list(request)).jobs.map((j) => j.title);

    expect(await titles({})).toEqual(["D", "C", "B", "A"]);
    expect(await titles({ sortOrder: SortOrder.SORT_ORDER_ASC })).toEqual(["A", "B", "C", "D"]);
    expect(await titles({ sortBy: JobSortField.JOB_SORT_FIELD_COMPLETED_AT })).toEqual(["D", "A", "C", "B"]);
    expect(await titles({ sortBy: JobSortField.JOB_SORT_FIELD_COMPLETED_AT, sortOrder: SortOrder.SORT_ORDER_ASC })).toEqual(["A", "D", "B", "C"]);
    expect(await titles({ sortBy: JobSortField.JOB_SORT_FIELD_UPDATED_AT })).toEqual(["D", "C", "A", "B"]);
    expect(await titles({ status: JobStatus.JOB_STATUS_COMPLETED })).toEqual(["D", "A"]);
    expect(await titles({ source: JobSource.JOB_SOURCE_UPLOAD })).toEqual(["B"]);
    expect(await titles({ source: JobSource.JOB_SOURCE_VIDEO, status: JobStatus.JOB_STATUS_FAILED })).toEqual(["C"]);

    const page = await list({ page: { limit: 2, offset: 1 } });
    expect(page.jobs.map((j) => j.title)).toEqual(["C", "B"]);
    expect(page.page).toEqual({ limit: 2, offset: 1, total: 4, hasMore: true });
    expect(page.jobs[1]).toMatchObject({
      id: b.job!.id,
      source: JobSource.JOB_SOURCE_UPLOAD,
      note: { id: b.note!.id, title: "B", courseId: b.note!.courseId },
    });
    expect(await refusal(list({ page: { limit: 500, offset: 0 } }))).toMatchObject({
      details: [{ field: "limit", message: "must be between 1 and 100" }],
    });
    expect(await refusal(list({ status: 42 as api.JobStatus }))).toMatchObject({ details: [{ field: "status", message: expect.any(String) }] });

    const stats = await client.getJobStats({ userId });
    expect(stats).toMatchObject({
      total: 4,
      byStatus: { pending: 1, inProgress: 0, completed: 2, failed: 1, cancelled: 0 },
      successRate: 66.7,
      queueStats: { waiting: 1, active: 0, completed: 2, failed: 1, total: 4 },
    });
    expect(stats.recentJobs.map((j) => j.title)).toEqual(["D", "C", "B", "A"]);
  });

  it("deletes a note with its rows, cancels its running import and names the stored files in NoteDeleted", async () => {
    const userId = user();
    const { note, job } = await (async () => {
      const response = await client.createImport({
        userId,
        type: ImportType.IMPORT_TYPE_AUDIO_UPLOAD,
        title: "Upload",
        courseId: randomUUID(),
        storageKey: "uploads/u.mp3",
        speedMultiplier: 2,
      });
      return { note: response.note!, job: response.job! };
    })();
    await service.db.attachment.create({
      data: {
        id: randomUUID(),
        noteId: note.id,
        storageKey: "attachments/slide.png",
        fileUrl: "/api/files/attachments/slide.png",
        fileName: "slide.png",
        fileSize: 100,
        mimeType: "image/png",
        timestamp: 12,
      },
    });
    await pipeline.start.execute(job.id);

    await client.deleteNote({ userId, noteId: note.id });
    expect(await refusal(client.getNote({ userId, noteId: note.id }))).toMatchObject(notFound);
    expect(await service.db.attachment.count({ where: { noteId: note.id } })).toBe(0);
    const { job: orphan } = await client.getJob({ userId, jobId: job.id });
    expect(orphan).toMatchObject({
      status: JobStatus.JOB_STATUS_CANCELLED,
      errorMessage: "Cancelled: the note was deleted",
      noteId: undefined,
      note: undefined,
    });
    expect(await refusal(pipeline.complete.execute(job.id, transcription))).toMatchObject({ code: "JOB_ALREADY_FINISHED" });

    const deleted = await eventFor("media.note.deleted.v1", (p) => p.noteId === note.id);
    expect(deleted.payload).toEqual({
      $case: "noteDeleted",
      value: { noteId: note.id, courseId: note.courseId, title: "Upload", storageKeys: ["uploads/u.mp3", "attachments/slide.png"] },
    });
    expect(await refusal(client.deleteNote({ userId, noteId: note.id }))).toMatchObject(notFound);
  });

  it("finds a stored file (audio or attachment) only among its owner's notes, and no longer once the note is deleted", async () => {
    const notes = new PrismaNoteRepository(service.db);
    const userId = user();
    const audioKey = `uploads/audio/${userId}/${randomUUID()}/talk.mp3`;
    const attachmentKey = `uploads/attachments/${userId}/${randomUUID()}/slides.pdf`;
    const { note } = await client.createImport({
      userId,
      type: ImportType.IMPORT_TYPE_AUDIO_UPLOAD,
      title: "Talk",
      courseId: randomUUID(),
      storageKey: audioKey,
      mimeType: "audio/mpeg",
      originalFilename: "Talk.mp3",
      speedMultiplier: 2,
    });
    await service.db.attachment.create({
      data: {
        id: randomUUID(),
        noteId: note!.id,
        storageKey: attachmentKey,
        fileUrl: `/api/files/${attachmentKey}`,
        fileName: "Week 1.pdf",
        fileSize: 10,
        mimeType: "application/pdf",
        timestamp: 3,
      },
    });

    expect(await notes.findOwnedFile(userId, audioKey)).toEqual({
      storageKey: audioKey,
      role: "audio",
      fileName: "Talk.mp3",
      mimeType: "audio/mpeg",
    });
    expect(await notes.findOwnedFile(userId, attachmentKey)).toEqual({
      storageKey: attachmentKey,
      role: "attachment",
      fileName: "Week 1.pdf",
      mimeType: "application/pdf",
    });
    expect(await notes.findOwnedFile(user(), audioKey)).toBeNull();
    expect(await notes.findOwnedFile(user(), attachmentKey)).toBeNull();
    expect(await notes.findOwnedFile(userId, "uploads/audio/unknown.mp3")).toBeNull();

    await client.deleteNote({ userId, noteId: note!.id });
    expect(await notes.findOwnedFile(userId, audioKey)).toBeNull();
    expect(await notes.findOwnedFile(userId, attachmentKey)).toBeNull();
  });

  it("removes a deleted course's notes when courses announces the deletion, and only those", async () => {
    const userId = user();
    const courseId = randomUUID();
    const kept = await importVideo(userId, "Other course");
    const gone = [await importVideo(userId, "Gone 1", courseId), await importVideo(userId, "Gone 2", courseId)];
    const connection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await connection.start(5_000);
    try {
      await new EventPublisher(connection, exchange).publish([
        createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Old" } }),
      ]);
    } finally {
      await connection.close();
    }
    await eventually(async () => (await client.listNotes({ userId, courseId })).page?.total === 0);
    expect((await client.listNotes({ userId })).notes.map((n) => n.id)).toEqual([kept.note.id]);
    for (const { note } of gone) await eventFor("media.note.deleted.v1", (p) => p.noteId === note.id);
  });

  it("lists searchables over SearchableSourceService: paged in id order, all users or one, another user's never in one's", async () => {
    const owner = user();
    const other = user();
    const mine: string[] = [];
    for (const title of ["One", "Two", "Three", "Four", "Five"]) mine.push((await importVideo(owner, title)).note.id);
    const theirs = (await importVideo(other, "Theirs")).note.id;
    await client.renameNote({ userId: owner, noteId: mine[0], title: "One, renamed" });

    const pages: indexing.Searchable[][] = [];
    let pageToken = "";
    do {
      const page = await source.listSearchables({ userId: owner, pageToken, pageSize: 2 });
      pages.push(page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    const listed = pages.flat();
    expect(listed.map((s) => s.id)).toEqual([...mine].sort());
    expect(listed.every((s) => s.userId === owner && s.type === indexing.SearchableType.SEARCHABLE_TYPE_NOTE)).toBe(true);
    expect(listed.map((s) => s.id)).not.toContain(theirs);
    const stored = (await client.getNote({ userId: owner, noteId: mine[0] })).note!;
    expect(listed.find((s) => s.id === mine[0])).toMatchObject({ title: "One, renamed", status: "PROCESSING", updatedAt: stored.updatedAt });

    // Without a user: everyone's notes, this test's among them, in id order across pages.
    const everyone: indexing.Searchable[] = [];
    pageToken = "";
    do {
      const page = await source.listSearchables({ pageToken, pageSize: 7 });
      everyone.push(...page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    const ids = everyone.map((s) => s.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...mine, theirs]));

    expect(await refusal(source.listSearchables({ pageToken: "not a token", pageSize: 0 }))).toMatchObject({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    expect(await refusal(source.listSearchables({ pageToken: "", pageSize: 1001 }))).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR" });
  });
});
