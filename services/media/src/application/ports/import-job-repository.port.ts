import type { EventEnvelope } from "@study/events/envelope";
import type { ImportJob, JobSource, JobStatus } from "../../domain/import-job";
import type { Note, TranscriptionStatus, TranscriptSegment } from "../../domain/note";

/** The note of a job, as job listings embed it. */
export interface JobNoteSummary {
  id: string;
  title: string;
  status: TranscriptionStatus;
  courseId: string;
  /** Seconds. */
  duration: number | null;
  /** Bytes. */
  fileSize: number | null;
  mimeType: string | null;
  summary: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface JobView {
  job: ImportJob;
  /** Null once the note was deleted. */
  note: JobNoteSummary | null;
}

export const JOB_SORT_FIELDS = ["createdAt", "updatedAt", "completedAt"] as const;
export type JobSortField = (typeof JOB_SORT_FIELDS)[number];
export type SortOrder = "asc" | "desc";

export interface JobQuery {
  status?: JobStatus;
  source?: JobSource;
  sortBy: JobSortField;
  sortOrder: SortOrder;
  limit: number;
  offset: number;
}

export interface JobPage {
  jobs: JobView[];
  /** Jobs matching the filter, before the page. */
  total: number;
}

/** A job with its note as the pipeline works on them. */
export interface JobWithNote {
  job: ImportJob;
  note: Note | null;
}

/** One change of a job (and of its note), written together with its events. */
export interface JobTransition {
  /** The job's new state; its version is the one read plus one. */
  job: ImportJob;
  /** The note's new state (transcription status, content, summary, audio, metadata), when it changes. */
  note: Note | null;
  /** Replaces the note's transcript segments, when given. */
  segments?: TranscriptSegment[];
  events: EventEnvelope[];
  /**
   * Events about the note, built from it as stored after the transition (its title and user notes may have been
   * edited since it was read); not called when the note is gone.
   */
  noteEvents?: (saved: Note) => EventEnvelope[];
}

/** Persistence of import jobs; a job is created together with its note. */
export interface ImportJobRepository {
  /** Inserts the note and its job with the events, in one transaction. */
  createImport(note: Note, job: ImportJob, events: EventEnvelope[]): Promise<void>;
  /** The job with its note summary if it exists and belongs to the user. */
  findOwned(userId: string, jobId: string): Promise<JobView | null>;
  /** Any user's job with its note (for the pipeline, which acts for the job's owner). */
  findWithNote(jobId: string): Promise<JobWithNote | null>;
  listOwned(userId: string, query: JobQuery): Promise<JobPage>;
  /** How many of the user's jobs are in each status. */
  countByStatus(userId: string): Promise<Record<JobStatus, number>>;
  /**
   * Writes the transition when the job is still at `expectedVersion` (compare and set); false when it was
   * changed or deleted meanwhile, and nothing was written.
   */
  saveTransition(transition: JobTransition, expectedVersion: number): Promise<boolean>;
  /** Deletes the user's job when it is finished and still at `expectedVersion`; false otherwise. */
  deleteFinished(userId: string, jobId: string, expectedVersion: number): Promise<boolean>;
}
