import type { JobStatus, ProgressStage } from "../../domain/import-job";

/** One recorded state of a job's progress. */
export interface JobProgress {
  jobId: string;
  status: JobStatus;
  progress: number;
  stage: ProgressStage | null;
  errorMessage: string | null;
  /** The job's version: each recorded change increments it. */
  version: number;
}

export interface JobProgressListener {
  onChange(progress: JobProgress): void;
  /** Changes may have been missed (the feed lost its connection and is back): read the job again. */
  onResync(): void;
}

/** Port: the changes of import jobs as they are recorded (published by every progress write, in commit order). */
export interface JobProgressFeed {
  /** Resolves once the job's changes are being received, so that a read made after it misses none. */
  subscribe(jobId: string, listener: JobProgressListener): Promise<{ close(): void }>;
}
