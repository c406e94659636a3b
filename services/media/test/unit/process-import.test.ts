import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@study/platform";
import { fixedClock } from "@study/platform/clock";
import { CompleteJob } from "../../src/application/complete-job";
import { FailJob } from "../../src/application/fail-job";
import type { AudioProcessor } from "../../src/application/ports/audio-processor.port";
import type { JobTransitionStore } from "../../src/application/job-transitions";
import type { JobTransition, JobWithNote } from "../../src/application/ports/import-job-repository.port";
import type { Transcriber } from "../../src/application/ports/transcriber.port";
import type { VideoSource } from "../../src/application/ports/video-source.port";
import { LocalScratchSpace } from "@study/storage";
import { INTERRUPTED_TOO_OFTEN, ProcessImport } from "../../src/application/process-import";
import { ReportProgress } from "../../src/application/report-progress";
import { StartJob } from "../../src/application/start-job";
import { aJob, aNote } from "./fixtures";

const JOB_ID = "0190a5f4-0000-7000-8000-000000000001";
const NOTE_ID = "0190a5f4-0000-7000-8000-000000000002";

/** One job and its note in memory, with compare-and-set writes like the Prisma repository's. */
function memoryRepository(initial: JobWithNote) {
  let current = initial;
  const transitions: JobTransition[] = [];
  const repository: JobTransitionStore = {
    async findWithNote(id: string) {
      return id === current.job.id ? current : null;
    },
    async saveTransition(transition: JobTransition, expectedVersion: number) {
      if (expectedVersion !== current.job.version) return false;
      transitions.push(transition);
      current = { job: transition.job, note: transition.note ?? current.note };
      return true;
    },
  };
  return { repository, transitions, current: () => current, set: (next: JobWithNote) => (current = next) };
}

describe("ProcessImport (the worker's pipeline, with in-memory ports)", () => {
  const STARTED_AT = "2026-03-02T09:00:00.000Z";
  const TRANSCRIPTION_MS = 90_000;
  const clock = fixedClock(STARTED_AT);
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), "process-import-"));
    clock.set(STARTED_AT);
  });
  afterEach(() => rm(work, { recursive: true, force: true }));

  function pipeline(
    state: ReturnType<typeof memoryRepository>,
    overrides: { transcriber?: Transcriber; audio?: Partial<AudioProcessor>; videoSource?: VideoSource } = {},
  ) {
    const jobs = state.repository;
    const audio: AudioProcessor = {
      probe: async () => ({ durationSeconds: 20, format: "mp3", hasAudio: true }),
      toSpeechWav: async (_input, output) => writeFile(output, "wav"),
      split: async () => [],
      ...overrides.audio,
    };
    const transcriber: Transcriber = overrides.transcriber ?? {
      name: "fake",
      async transcribe(_path, options) {
        clock.advance(TRANSCRIPTION_MS);
        options?.onProgress?.(0.5);
        return {
          text: "cells make energy. mitochondria are small.",
          segments: [
            { text: "cells make energy.", startTime: 0, endTime: 4 },
            { text: "mitochondria are small.", startTime: 4.5, endTime: 9.75 },
          ],
          language: "en",
          confidence: 0.8,
          durationSeconds: 10,
        };
      },
    };
    return new ProcessImport({
      jobs,
      startJob: new StartJob(jobs, clock),
      reportProgress: new ReportProgress(jobs, clock),
      completeJob: new CompleteJob(jobs, clock),
      failJob: new FailJob(jobs, clock),
      storage: { download: async (_key: string, path: string) => writeFile(path, "mp3") } as never,
      downloader: {} as never,
      videoSource: overrides.videoSource ?? ({} as never),
      audio,
      transcriber,
      summarizer: { name: "fake", summarize: async () => "Cells make energy." },
      logger: createLogger("test", "silent"),
      scratch: new LocalScratchSpace(work),
      watchIntervalMs: 20,
      progressIntervalMs: 0,
      clock,
    });
  }

  const uploadJob = (changes = {}) => ({
    job: aJob("PENDING", {
      id: JOB_ID,
      noteId: NOTE_ID,
      type: "AUDIO_UPLOAD",
      source: "UPLOAD",
      storageKey: "uploads/a.mp3",
      speedMultiplier: 2,
      ...changes,
    }),
    note: aNote("PENDING", { id: NOTE_ID }),
  });

  it("completes an upload: segments mapped back to the original timeline (× speed), progress through the stages, temp files removed", async () => {
    const state = memoryRepository(uploadJob());
    expect(await pipeline(state).run(JOB_ID)).toBe("completed");
    const { job, note } = state.current();
    expect(job).toMatchObject({ status: "COMPLETED", progress: 100, attempts: 1 });
    // started when the worker took it, completed after the transcription's time, both read from the clock
    expect(job.startedAt).toEqual(new Date(STARTED_AT));
    expect(job.completedAt).toEqual(new Date(Date.parse(STARTED_AT) + TRANSCRIPTION_MS));
    expect(note).toMatchObject({
      transcriptionStatus: "COMPLETED",
      summary: "Cells make energy.",
      metadata: expect.objectContaining({ duration: 20, wordCount: 6 }),
    });
    const segments = state.transitions.at(-1)!.segments!;
    expect(segments.map((segment) => [segment.startTime, segment.endTime])).toEqual([
      [0, 8],
      [9, 19.5],
    ]);
    const stages = state.transitions.map((transition) => transition.job.stage);
    expect(stages).toEqual(expect.arrayContaining(["SETUP", "TRANSCRIPTION", "CONTENT_PROCESSING", "NOTE_CREATION"]));
    const progress = state.transitions.map((transition) => transition.job.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(await readdir(work, { recursive: true })).toEqual([]);
  });

  it("records the size and name of a video's extracted audio in the note's metadata", async () => {
    const state = memoryRepository({
      job: aJob("PENDING", {
        id: JOB_ID,
        noteId: NOTE_ID,
        type: "VIDEO_IMPORT",
        source: "VIDEO",
        sourceUrl: "https://video.example.com/watch?v=42",
        speedMultiplier: 2,
      }),
      note: aNote("PENDING", { id: NOTE_ID, metadata: { source: "video", originalUrl: "https://video.example.com/watch?v=42" } }),
    });
    const videoSource: VideoSource = {
      getInfo: async () => Promise.reject(new Error("not used by the worker")),
      async downloadAudio(_url, directory) {
        const path = join(directory, "dQw4w9WgXcQ.mp3");
        await writeFile(path, Buffer.alloc(12_345, 1));
        return path;
      },
    };
    expect(await pipeline(state, { videoSource }).run(JOB_ID)).toBe("completed");
    expect(state.current().note!.metadata).toMatchObject({
      source: "video",
      originalUrl: "https://video.example.com/watch?v=42",
      mimeType: "audio/mpeg",
      fileSize: 12_345,
      originalFilename: "dQw4w9WgXcQ.mp3",
    });
  });

  it("completes without a confidence in the metadata when the transcriber gave none", async () => {
    const state = memoryRepository(uploadJob());
    const transcriber: Transcriber = {
      name: "unscored",
      transcribe: async () => ({
        text: "cells make energy.",
        segments: [{ text: "cells make energy.", startTime: 0, endTime: 4 }],
        language: "en",
        durationSeconds: 10,
      }),
    };
    expect(await pipeline(state, { transcriber }).run(JOB_ID)).toBe("completed");
    const { metadata } = state.current().note!;
    expect(metadata).toMatchObject({ language: "en", wordCount: 3 });
    expect("confidence" in metadata).toBe(false);
  });

  it("keeps each segment's confidence, clamped to 0-1 like the note's; a segment the engine gave none has none", async () => {
    const state = memoryRepository(uploadJob());
    const transcriber: Transcriber = {
      name: "scored",
      transcribe: async () => ({
        text: "cells make energy. mitochondria are small. um. atp.",
        segments: [
          { text: "cells make energy.", startTime: 0, endTime: 4, confidence: 0.93 },
          { text: "mitochondria are small.", startTime: 4, endTime: 8 },
          { text: "um.", startTime: 8, endTime: 9, confidence: 1.0000001 },
          { text: "atp.", startTime: 9, endTime: 10, confidence: -0.0000001 },
        ],
        language: "en",
        confidence: 0.7,
        durationSeconds: 10,
      }),
    };
    expect(await pipeline(state, { transcriber }).run(JOB_ID)).toBe("completed");
    const segments = state.transitions.at(-1)!.segments!;
    expect(segments.map(({ text, confidence }) => ({ text, confidence }))).toEqual([
      { text: "cells make energy.", confidence: 0.93 },
      { text: "mitochondria are small.", confidence: undefined },
      { text: "um.", confidence: 1 },
      { text: "atp.", confidence: 0 },
    ]);
    expect("confidence" in segments[1]).toBe(false);
    expect(segments.every((segment) => segment.noteId === NOTE_ID)).toBe(true);
  });

  it("fails the job with a clear message when the audio cannot be read, or the transcriber fails", async () => {
    const unreadable = memoryRepository(uploadJob());
    await pipeline(unreadable, { audio: { probe: async () => Promise.reject(new Error("ffprobe: invalid data")) } }).run(JOB_ID);
    expect(unreadable.current().job).toMatchObject({ status: "FAILED", errorMessage: expect.stringMatching(/^Unsupported audio format/) });
    expect(unreadable.current().note!.transcriptionStatus).toBe("FAILED");

    const broken = memoryRepository(uploadJob());
    const transcriber: Transcriber = { name: "broken", transcribe: async () => Promise.reject(new Error("engine crashed")) };
    expect(await pipeline(broken, { transcriber }).run(JOB_ID)).toBe("failed");
    expect(broken.current().job.errorMessage).toBe("Transcription failed: engine crashed");
  });

  it("fails a job that was interrupted too many times instead of starting it again", async () => {
    const state = memoryRepository(uploadJob({ status: "IN_PROGRESS", attempts: 3, progress: 40, stage: "TRANSCRIPTION" }));
    expect(await pipeline(state).run(JOB_ID)).toBe("failed");
    expect(state.current().job).toMatchObject({ status: "FAILED", errorMessage: INTERRUPTED_TOO_OFTEN, attempts: 3 });
  });

  it("restarts an IN_PROGRESS job (redelivered) as a new attempt, and drops a finished one", async () => {
    const restarted = memoryRepository(uploadJob({ status: "IN_PROGRESS", attempts: 1, progress: 40, stage: "TRANSCRIPTION" }));
    expect(await pipeline(restarted).run(JOB_ID)).toBe("completed");
    expect(restarted.current().job.attempts).toBe(2);
    const done = memoryRepository(uploadJob({ status: "CANCELLED" }));
    expect(await pipeline(done).run(JOB_ID)).toBe("skipped");
    expect(done.transitions).toEqual([]);
  });

  it("stops when the job is cancelled mid-way: the transcriber is aborted, nothing completes, temp files are removed", async () => {
    const state = memoryRepository(uploadJob());
    let aborted = false;
    const transcriber: Transcriber = {
      name: "slow",
      transcribe: (_path, options) =>
        new Promise((_resolve, reject) => {
          // The user cancels while transcription runs.
          const { job, note } = state.current();
          state.set({ job: { ...job, status: "CANCELLED", version: job.version + 1 }, note });
          options!.signal!.addEventListener("abort", () => {
            aborted = true;
            reject(options!.signal!.reason);
          });
        }),
    };
    expect(await pipeline(state, { transcriber }).run(JOB_ID)).toBe("cancelled");
    expect(aborted).toBe(true);
    expect(state.current().job.status).toBe("CANCELLED");
    expect(await readdir(work, { recursive: true })).toEqual([]);
  });

  it("stops a run whose job was cancelled, retried and started again meanwhile: same attempt number, another start (#29)", async () => {
    const state = memoryRepository(uploadJob());
    let aborted = false;
    const transcriber: Transcriber = {
      name: "slow",
      transcribe: (_path, options) =>
        new Promise((_resolve, reject) => {
          // Cancelled, retried (attempts from 0) and started by another worker before this run re-read the job:
          // the job is IN_PROGRESS at attempt 1 again, from a later start.
          const { job, note } = state.current();
          state.set({
            job: { ...job, status: "IN_PROGRESS", attempts: 1, startedAt: new Date(job.startedAt!.getTime() + 5_000), version: job.version + 3 },
            note,
          });
          options!.signal!.addEventListener("abort", () => {
            aborted = true;
            reject(options!.signal!.reason);
          });
        }),
    };
    expect(await pipeline(state, { transcriber }).run(JOB_ID)).toBe("cancelled");
    expect(aborted).toBe(true);
    expect(state.current().job).toMatchObject({ status: "IN_PROGRESS", attempts: 1 });
  });

  it("leaves the job to redelivery when the worker shuts down (rejects, job stays IN_PROGRESS)", async () => {
    const state = memoryRepository(uploadJob());
    const shutdown = new AbortController();
    const transcriber: Transcriber = {
      name: "slow",
      transcribe: (_path, options) =>
        new Promise((_resolve, reject) => {
          options!.signal!.addEventListener("abort", () => reject(options!.signal!.reason));
          shutdown.abort();
        }),
    };
    await expect(pipeline(state, { transcriber }).run(JOB_ID, shutdown.signal)).rejects.toThrow(/shutting down/);
    expect(state.current().job.status).toBe("IN_PROGRESS");
    expect(existsSync(work) ? await readdir(work, { recursive: true }) : []).toEqual([]);
  });
});
