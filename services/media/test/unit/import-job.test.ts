import {
  assertDeletable,
  cancelJob,
  completeJob,
  errorText,
  failJob,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  progressWithin,
  reportProgress,
  retryJob,
  sourceOf,
  startJob,
  STAGE_RANGES,
  type ImportJob,
  type JobStatus,
} from "../../src/domain/import-job";
import { aJob, at, later } from "./fixtures";
import { refusal } from "@study/testkit/refusal";

const finished = { kind: "precondition", code: "JOB_ALREADY_FINISHED" };
const notStarted = { kind: "precondition", code: "JOB_NOT_STARTED" };

/** Every operation that moves a job, by the status it leads to. */
const operations: Record<string, (job: ImportJob) => ImportJob> = {
  start: (job) => startJob(job, later),
  complete: (job) => completeJob(job, later),
  fail: (job) => failJob(job, "Network timeout", later),
  cancel: (job) => cancelJob(job, later),
  retry: (job) => retryJob(job, later),
};
const target: Record<string, JobStatus> = { start: "IN_PROGRESS", complete: "COMPLETED", fail: "FAILED", cancel: "CANCELLED", retry: "PENDING" };
const notRetryable = { kind: "conflict", code: "JOB_NOT_RETRYABLE" };

describe("the import job state machine", () => {
  describe.each(JOB_STATUSES)("from %s", (from) => {
    it.each(Object.keys(operations))("%s is allowed exactly when the transition table allows it", async (operation) => {
      const job = aJob(from, from === "IN_PROGRESS" ? { progress: 40, stage: "TRANSCRIPTION", attempts: 1 } : {});
      const to = target[operation];
      if (JOB_TRANSITIONS[from].includes(to)) {
        const moved = operations[operation](job);
        expect(moved).toMatchObject({ status: to, version: job.version + 1, updatedAt: later });
        expect(job.status).toBe(from); // the input is left untouched
      } else {
        const refused = await refusal(() => operations[operation](job));
        // Finished jobs are refused as finished; completing a job that never started is refused as such; a retry of
        // anything but a cancelled or failed job is refused as not retryable.
        if (operation === "retry") expect(refused).toMatchObject(notRetryable);
        else expect(refused).toMatchObject(["COMPLETED", "FAILED", "CANCELLED"].includes(from) ? finished : notStarted);
      }
    });
  });

  it("allows exactly these transitions", () => {
    expect(JOB_TRANSITIONS).toEqual({
      PENDING: ["IN_PROGRESS", "FAILED", "CANCELLED"],
      IN_PROGRESS: ["IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLED"],
      COMPLETED: [],
      FAILED: ["PENDING"],
      CANCELLED: ["PENDING"],
    });
  });

  it("retries a cancelled or failed import from the start with what it kept; not one whose note was deleted (#29)", async () => {
    const cancelled = aJob("CANCELLED", {
      progress: 40,
      stage: "TRANSCRIPTION",
      attempts: 2,
      errorMessage: "Cancelled by user",
      startedAt: at,
      storageKey: "uploads/u/lecture.mp3",
      speedMultiplier: 1,
    });
    expect(retryJob(cancelled, later)).toEqual({
      ...cancelled,
      status: "PENDING",
      progress: 0,
      stage: null,
      errorMessage: null,
      attempts: 0,
      startedAt: null,
      completedAt: null,
      version: cancelled.version + 1,
      updatedAt: later,
    });
    expect(retryJob(aJob("FAILED", { errorMessage: "Download failed: timeout", sourceUrl: "https://example.com/a.mp3" }), later)).toMatchObject({
      status: "PENDING",
      sourceUrl: "https://example.com/a.mp3",
      errorMessage: null,
    });
    const orphan = aJob("CANCELLED", { noteId: null });
    expect(await refusal(() => retryJob(orphan, later))).toMatchObject(notRetryable);
    expect(() => retryJob(orphan, later)).toThrow("The note of this import was deleted: import the file again");
    expect(await refusal(() => retryJob(aJob("COMPLETED"), later))).toMatchObject(notRetryable);
    expect(() => retryJob(aJob("IN_PROGRESS"), later)).toThrow("Only a cancelled or failed import can be retried; this one is in progress");
  });

  it("starts an attempt at progress 0 in the setup stage and counts it", () => {
    const started = startJob(aJob("PENDING"), later);
    expect(started).toMatchObject({ status: "IN_PROGRESS", progress: 0, stage: "SETUP", attempts: 1, startedAt: later });
    const restarted = startJob({ ...started, progress: 60, stage: "TRANSCRIPTION" }, later);
    expect(restarted).toMatchObject({ status: "IN_PROGRESS", progress: 0, stage: "SETUP", attempts: 2 });
  });

  it("completes with progress 100 and completedAt; failing keeps completedAt empty and records the error", () => {
    const running = aJob("IN_PROGRESS", { progress: 97, stage: "NOTE_CREATION", attempts: 1 });
    expect(completeJob(running, later)).toMatchObject({ status: "COMPLETED", progress: 100, completedAt: later, errorMessage: null });
    expect(failJob(running, "  Transcription failed: poor audio ", later)).toMatchObject({
      status: "FAILED",
      progress: 97,
      completedAt: null,
      errorMessage: "Transcription failed: poor audio",
    });
    expect(failJob(aJob("PENDING"), "Too many concurrent jobs", later)).toMatchObject({ status: "FAILED", errorMessage: "Too many concurrent jobs" });
  });

  it("cancels with the reason as errorMessage (by the user unless told otherwise)", () => {
    expect(cancelJob(aJob("PENDING"), later)).toMatchObject({ status: "CANCELLED", errorMessage: "Cancelled by user", completedAt: null });
    expect(cancelJob(aJob("IN_PROGRESS"), later, "Cancelled: the note was deleted").errorMessage).toBe("Cancelled: the note was deleted");
  });

  it("refuses to cancel a finished job with JOB_ALREADY_FINISHED naming its state", async () => {
    expect(await refusal(() => cancelJob(aJob("COMPLETED"), later))).toMatchObject(finished);
    expect(() => cancelJob(aJob("COMPLETED"), later)).toThrow("Job is already completed");
    expect(() => cancelJob(aJob("FAILED"), later)).toThrow("Job is already failed");
    expect(() => cancelJob(aJob("CANCELLED"), later)).toThrow("Job is already cancelled");
  });

  it("deletes only finished jobs; an active one is refused with JOB_ACTIVE (cancel first)", async () => {
    for (const status of ["COMPLETED", "FAILED", "CANCELLED"] as const) expect(() => assertDeletable(aJob(status))).not.toThrow();
    for (const status of ["PENDING", "IN_PROGRESS"] as const) {
      const refused = await refusal(() => assertDeletable(aJob(status)));
      expect(refused).toMatchObject({ kind: "precondition", code: "JOB_ACTIVE" });
    }
  });

  it("cuts long error messages to 1000 characters and names a blank one", () => {
    expect(errorText("x".repeat(1500))).toHaveLength(1000);
    expect(errorText("x".repeat(1500)).endsWith("…")).toBe(true);
    expect(errorText("   ")).toBe("Processing failed");
  });

  it("shows video imports as VIDEO and audio imports and uploads as UPLOAD", () => {
    expect(sourceOf("VIDEO_IMPORT")).toBe("VIDEO");
    expect(sourceOf("AUDIO_IMPORT")).toBe("UPLOAD");
    expect(sourceOf("AUDIO_UPLOAD")).toBe("UPLOAD");
  });
});

describe("progress rules", () => {
  const running = aJob("IN_PROGRESS", { progress: 30, stage: "TRANSCRIPTION", attempts: 1 });

  it("maps the stages to setup 0-25, transcription 25-75, content processing 75-95, note creation 95-100", () => {
    expect(STAGE_RANGES).toEqual({ SETUP: [0, 25], TRANSCRIPTION: [25, 75], CONTENT_PROCESSING: [75, 95], NOTE_CREATION: [95, 100] });
    expect(progressWithin("SETUP", 0)).toBe(0);
    expect(progressWithin("SETUP", 1)).toBe(25);
    expect(progressWithin("TRANSCRIPTION", 0.5)).toBe(50);
    expect(progressWithin("CONTENT_PROCESSING", 0.5)).toBe(85);
    expect(progressWithin("NOTE_CREATION", 2)).toBe(100);
    expect(progressWithin("TRANSCRIPTION", Number.NaN)).toBe(25);
  });

  it("records a higher value in its stage", () => {
    expect(reportProgress(running, "TRANSCRIPTION", 50, later)).toMatchObject({ progress: 50, stage: "TRANSCRIPTION", version: running.version + 1 });
    expect(reportProgress(running, "CONTENT_PROCESSING", 80, later)).toMatchObject({ progress: 80, stage: "CONTENT_PROCESSING" });
    expect(reportProgress(running, "TRANSCRIPTION", 75, later).progress).toBe(75);
  });

  it("never goes back: a lower or equal value is ignored and returns the same job", () => {
    expect(reportProgress(running, "TRANSCRIPTION", 25, later)).toBe(running);
    expect(reportProgress(running, "TRANSCRIPTION", 30, later)).toBe(running);
    expect(reportProgress(running, "SETUP", 10, later)).toBe(running);
  });

  it("refuses a value outside its stage's range or not an integer", async () => {
    for (const [stage, value] of [
      ["SETUP", 26],
      ["TRANSCRIPTION", 80],
      ["NOTE_CREATION", 94],
      ["CONTENT_PROCESSING", 101],
      ["TRANSCRIPTION", 40.5],
    ] as const) {
      const refused = await refusal(() => reportProgress(running, stage, value, later));
      expect(refused).toMatchObject({
        kind: "validation",
        code: "VALIDATION_ERROR",
        details: [{ field: "progress", message: expect.stringContaining(stage) }],
      });
    }
  });

  it("refuses progress of a job that has not started or has finished (the worker stops on that answer)", async () => {
    expect(await refusal(() => reportProgress(aJob("PENDING"), "SETUP", 5, at))).toMatchObject(notStarted);
    for (const status of ["COMPLETED", "FAILED", "CANCELLED"] as const) {
      expect(await refusal(() => reportProgress(aJob(status), "SETUP", 5, at))).toMatchObject(finished);
    }
  });
});
