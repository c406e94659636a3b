import { AppError } from "@study/platform/errors";

/**
 * The job states. The spec names four; CANCELLED is the state a cancelled job takes (the spec leaves it
 * open), so that a cancelled import is told apart from one that failed.
 */
export const JOB_STATUSES = ["PENDING", "IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLED"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** States a job never leaves; only these can be deleted. */
export const FINISHED_STATUSES: readonly JobStatus[] = ["COMPLETED", "FAILED", "CANCELLED"];
export const ACTIVE_STATUSES: readonly JobStatus[] = ["PENDING", "IN_PROGRESS"];
export const isFinished = (status: JobStatus): boolean => FINISHED_STATUSES.includes(status);

/** What an import starts from (the REST `type` of a job creation). */
export const IMPORT_TYPES = ["VIDEO_IMPORT", "AUDIO_IMPORT", "AUDIO_UPLOAD"] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

/** The job's `source` as the API shows it: VIDEO for video imports, UPLOAD for audio (by URL or upload). */
export const JOB_SOURCES = ["VIDEO", "UPLOAD"] as const;
export type JobSource = (typeof JOB_SOURCES)[number];

export const sourceOf = (type: ImportType): JobSource => (type === "VIDEO_IMPORT" ? "VIDEO" : "UPLOAD");

/**
 * Progress stages and the part of 0-100 each covers: setup (download, conversion) 0-25, transcription
 * 25-75, content processing and summary 75-95, note creation and cleanup 95-100.
 */
export const PROGRESS_STAGES = ["SETUP", "TRANSCRIPTION", "CONTENT_PROCESSING", "NOTE_CREATION"] as const;
export type ProgressStage = (typeof PROGRESS_STAGES)[number];
export const STAGE_RANGES: Record<ProgressStage, readonly [number, number]> = {
  SETUP: [0, 25],
  TRANSCRIPTION: [25, 75],
  CONTENT_PROCESSING: [75, 95],
  NOTE_CREATION: [95, 100],
};

/** The progress for a fraction (0-1) of a stage's work, e.g. (TRANSCRIPTION, 0.5) → 50. */
export function progressWithin(stage: ProgressStage, fraction: number): number {
  const [from, to] = STAGE_RANGES[stage];
  const clamped = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 0;
  return Math.floor(from + (to - from) * clamped);
}

/** Speed of transcription: 1 standard, 2 the cost-optimised faster mode (the default). */
export const SPEED_MULTIPLIERS = [1, 2] as const;
export type SpeedMultiplier = (typeof SPEED_MULTIPLIERS)[number];
export const DEFAULT_SPEED_MULTIPLIER: SpeedMultiplier = 2;

/** An import job as the domain sees it. */
export interface ImportJob {
  id: string;
  userId: string;
  /** Null once the note was deleted. */
  noteId: string | null;
  type: ImportType;
  source: JobSource;
  title: string;
  status: JobStatus;
  /** 0-100, never decreasing within an attempt. */
  progress: number;
  stage: ProgressStage | null;
  errorMessage: string | null;
  /** How many times processing started. */
  attempts: number;
  /** Optimistic concurrency: each change increments it, a write expects the version it read. */
  version: number;
  sourceUrl: string | null;
  storageKey: string | null;
  speedMultiplier: SpeedMultiplier;
  mimeType: string | null;
  originalFilename: string | null;
  fileSize: number | null;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** Longest stored error message (characters); longer ones are cut with an ellipsis. */
export const MAX_ERROR_MESSAGE_LENGTH = 1000;
export const CANCELLED_BY_USER = "Cancelled by user";
export const CANCELLED_WITH_NOTE = "Cancelled: the note was deleted";

/** Refusal of a change to a job that no longer runs (COMPLETED, FAILED or CANCELLED). */
export function jobAlreadyFinished(status: JobStatus): AppError {
  return new AppError("precondition", "JOB_ALREADY_FINISHED", `Job is already ${status.toLowerCase().replace("_", " ")}`);
}

/** Refusal of progress or completion for a job whose processing has not started. */
export function jobNotStarted(): AppError {
  return new AppError("precondition", "JOB_NOT_STARTED", "Job processing has not started");
}

function changed(job: ImportJob, changes: Partial<ImportJob>, now: Date): ImportJob {
  return { ...job, ...changes, version: job.version + 1, updatedAt: now };
}

/**
 * PENDING → IN_PROGRESS, counting the attempt. A job already IN_PROGRESS starts again (its work message was
 * redelivered after the worker stopped): a new attempt from progress 0. Finished jobs are refused.
 */
export function startJob(job: ImportJob, now: Date): ImportJob {
  if (isFinished(job.status)) throw jobAlreadyFinished(job.status);
  return changed(job, { status: "IN_PROGRESS", progress: 0, stage: "SETUP", attempts: job.attempts + 1, startedAt: now, errorMessage: null }, now);
}

/**
 * Records progress of a running job. The value must lie in its stage's range; progress never goes back:
 * a report below the current value (a late or out-of-order report) changes nothing and returns the job as
 * it is (same object, so callers can skip the write).
 */
export function reportProgress(job: ImportJob, stage: ProgressStage, progress: number, now: Date): ImportJob {
  if (isFinished(job.status)) throw jobAlreadyFinished(job.status);
  if (job.status !== "IN_PROGRESS") throw jobNotStarted();
  const [from, to] = STAGE_RANGES[stage];
  if (!Number.isInteger(progress) || progress < from || progress > to) {
    throw AppError.validation("Invalid progress", [{ field: "progress", message: `must be an integer from ${from} to ${to} in stage ${stage}` }]);
  }
  if (progress < job.progress || (progress === job.progress && stage === job.stage)) return job;
  return changed(job, { progress, stage }, now);
}

/** IN_PROGRESS → COMPLETED: progress 100, completedAt set. */
export function completeJob(job: ImportJob, now: Date): ImportJob {
  if (isFinished(job.status)) throw jobAlreadyFinished(job.status);
  if (job.status !== "IN_PROGRESS") throw jobNotStarted();
  return changed(job, { status: "COMPLETED", progress: 100, stage: "NOTE_CREATION", completedAt: now, errorMessage: null }, now);
}

/** Cuts a message to the stored maximum; a blank one becomes a generic text. */
export function errorText(message: string): string {
  const trimmed = message.trim() || "Processing failed";
  const characters = [...trimmed];
  return characters.length <= MAX_ERROR_MESSAGE_LENGTH ? trimmed : `${characters.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1).join("")}…`;
}

/** PENDING or IN_PROGRESS → FAILED with the error message (a job may fail before its processing started). */
export function failJob(job: ImportJob, message: string, now: Date): ImportJob {
  if (isFinished(job.status)) throw jobAlreadyFinished(job.status);
  return changed(job, { status: "FAILED", errorMessage: errorText(message) }, now);
}

/** PENDING or IN_PROGRESS → CANCELLED; completed, failed and cancelled jobs are refused (JOB_ALREADY_FINISHED). */
export function cancelJob(job: ImportJob, now: Date, reason = CANCELLED_BY_USER): ImportJob {
  if (isFinished(job.status)) throw jobAlreadyFinished(job.status);
  return changed(job, { status: "CANCELLED", errorMessage: reason }, now);
}

/** States from which a job can be retried: an import that did not finish its work. */
export const RETRYABLE_STATUSES: readonly JobStatus[] = ["CANCELLED", "FAILED"];

/** Refusal of a retry: the job is not CANCELLED or FAILED, or its note is gone (409). */
export function jobNotRetryable(reason: string): AppError {
  return new AppError("conflict", "JOB_NOT_RETRYABLE", reason);
}

/**
 * CANCELLED or FAILED → PENDING: the import runs again from what it kept (the stored upload, the audio or video
 * URL, the speed). Progress, stage, error, attempts and times start over, so the retry gets its own
 * MEDIA_MAX_ATTEMPTS starts. A job whose note was deleted has nothing to import into, and an active or completed
 * job nothing to retry: both are refused with JOB_NOT_RETRYABLE.
 */
export function retryJob(job: ImportJob, now: Date): ImportJob {
  if (!RETRYABLE_STATUSES.includes(job.status)) {
    throw jobNotRetryable(`Only a cancelled or failed import can be retried; this one is ${job.status.toLowerCase().replace("_", " ")}`);
  }
  if (job.noteId === null) throw jobNotRetryable("The note of this import was deleted: import the file again");
  return changed(job, { status: "PENDING", progress: 0, stage: null, errorMessage: null, attempts: 0, startedAt: null, completedAt: null }, now);
}

/** Only finished jobs may be deleted: an active one must be cancelled first (JOB_ACTIVE). */
export function assertDeletable(job: ImportJob): void {
  if (!isFinished(job.status)) {
    throw new AppError("precondition", "JOB_ACTIVE", "Job is still active: cancel it first, then delete it");
  }
}

/** Every (from, to) the job state machine allows, for documentation and tests. */
export const JOB_TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  PENDING: ["IN_PROGRESS", "FAILED", "CANCELLED"],
  IN_PROGRESS: ["IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLED"],
  COMPLETED: [],
  // A retry (RetryJob) queues the import again.
  FAILED: ["PENDING"],
  CANCELLED: ["PENDING"],
};
