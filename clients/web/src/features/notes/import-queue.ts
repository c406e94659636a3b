import { StudyApiError, type ServerEvent, type UploadProgress } from "@study/sdk";

/**
 * The imports a person starts on the import page, as a store React reads with useSyncExternalStore: audio files
 * wait in a queue and upload one at a time (each with its progress, each cancellable), and every started import
 * follows its job's event stream (GET /api/jobs/{id}/events) until the job is COMPLETED, FAILED or CANCELLED.
 * The API is reached through `ImportDeps`, so the rules here are tested without a server.
 */

export type JobStatus = "PENDING" | "IN_PROGRESS" | "COMPLETED" | "FAILED" | "CANCELLED";

/** The stages a running job reports, in order (spec: 0-25 setup, 25-75 transcription, 75-95 content, 95-100 note). */
export const STAGES = ["SETUP", "TRANSCRIPTION", "CONTENT_PROCESSING", "NOTE_CREATION"] as const;
export type Stage = (typeof STAGES)[number];

/** A job as its `progress` events describe it. */
export interface JobState {
  id: string;
  status: JobStatus;
  progress: number;
  stage: Stage | null;
  errorMessage: string | null;
}

export type ImportKind = "upload" | "audio" | "video";

/**
 * Where an import is: waiting for its turn to upload, uploading, imported and followed (`importing`), or ended.
 * `cancelled` covers an upload stopped before the API had it and a job cancelled afterwards.
 */
export type ImportPhase = "queued" | "uploading" | "importing" | "completed" | "failed" | "cancelled";

export interface ImportItem {
  /** This page's own key of the import (a job id is known only once the upload is done). */
  key: string;
  kind: ImportKind;
  /** What the person chose: the file's name or the link. */
  label: string;
  phase: ImportPhase;
  /** Bytes sent while uploading. */
  upload?: UploadProgress;
  job?: JobState;
  noteId?: string;
  noteTitle?: string;
  /** The person's earlier note made from the same file (the upload answer's duplicateOf). */
  duplicateOf?: string | null;
  /** A refusal: of the upload (the item failed), of cancelling, or of following the job (the stream gave up). */
  error?: unknown;
  /** A cancel request is on its way. */
  cancelling?: boolean;
}

/** An import the API accepted: its note and its job. */
export interface StartedImport {
  noteId: string;
  noteTitle: string;
  jobId: string;
  status: JobStatus;
  duplicateOf?: string | null;
}

export interface ImportDeps {
  /** POST /api/notes/upload/audio for one file. */
  upload(file: File, options: { onProgress: (progress: UploadProgress) => void; signal: AbortSignal }): Promise<StartedImport>;
  /** The job's server-sent events until the stream ends. */
  events(jobId: string, signal: AbortSignal): AsyncIterable<ServerEvent>;
  /** POST /api/jobs/{id}/cancel. */
  cancelJob(jobId: string): Promise<void>;
  /** Waits before following a job again after its stream broke (tests pass a function that does not wait). */
  pause?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
}

const FINAL: readonly JobStatus[] = ["COMPLETED", "FAILED", "CANCELLED"];
const STATUSES: readonly JobStatus[] = ["PENDING", "IN_PROGRESS", ...FINAL];

export const isFinal = (status: JobStatus) => FINAL.includes(status);

const isStatus = (value: unknown): value is JobStatus => typeof value === "string" && (STATUSES as readonly string[]).includes(value);
const isStage = (value: unknown): value is Stage => typeof value === "string" && (STAGES as readonly string[]).includes(value);

/** The job after one `progress` event (`{status, progress, stage, errorMessage?}`); anything else leaves it as it was. */
export function applyJobEvent(job: JobState, event: ServerEvent): JobState {
  if (event.event !== "progress" || typeof event.data !== "object" || event.data === null) return job;
  const data = event.data as Record<string, unknown>;
  if (!isStatus(data.status)) return job;
  return {
    ...job,
    status: data.status,
    progress: typeof data.progress === "number" ? Math.min(100, Math.max(0, data.progress)) : job.progress,
    stage: isStage(data.stage) ? data.stage : data.stage === null ? null : job.stage,
    errorMessage: typeof data.errorMessage === "string" ? data.errorMessage : data.status === "FAILED" ? job.errorMessage : null,
  };
}

/** The phase an item is in while its job has `status`. */
export function phaseOfJob(status: JobStatus): ImportPhase {
  if (status === "COMPLETED") return "completed";
  if (status === "FAILED") return "failed";
  if (status === "CANCELLED") return "cancelled";
  return "importing";
}

/** How many times in a row a broken event stream is opened again before the item shows the error. */
export const MAX_STREAM_RETRIES = 3;

const wait = (milliseconds: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const isAbort = (error: unknown) => error instanceof Error && error.name === "AbortError";

export class ImportQueue {
  private items: readonly ImportItem[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly files = new Map<string, File>();
  /** In-flight work by item key: the upload, then the job's stream. */
  private readonly work = new Map<string, AbortController>();
  private uploading: string | null = null;
  private counter = 0;

  constructor(private readonly deps: ImportDeps) {}

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  readonly getSnapshot = () => this.items;

  /** Queues audio files; they upload one after another, in the order given. Returns their keys. */
  addFiles(files: Iterable<File>): string[] {
    const keys: string[] = [];
    for (const file of files) {
      const key = this.nextKey();
      this.files.set(key, file);
      keys.push(key);
      this.items = [...this.items, { key, kind: "upload", label: file.name, phase: "queued" }];
    }
    this.changed();
    this.pump();
    return keys;
  }

  /** An import the API already accepted (an audio or video link): follows its job. Returns its key. */
  addStarted(kind: ImportKind, label: string, started: StartedImport): string {
    const key = this.nextKey();
    this.items = [...this.items, { key, kind, label, ...this.startedFields(started) }];
    this.changed();
    if (!isFinal(started.status)) this.follow(key, started.jobId);
    return key;
  }

  /**
   * Cancels an item: a queued file leaves the queue, an upload stops (nothing reaches the API), a running job is
   * cancelled through the API (its stream then reports CANCELLED). An ended item stays as it is.
   */
  async cancel(key: string): Promise<void> {
    const item = this.find(key);
    if (!item) return;
    if (item.phase === "queued" || item.phase === "uploading") {
      this.work.get(key)?.abort();
      this.files.delete(key);
      this.update(key, { phase: "cancelled", upload: undefined });
      return;
    }
    if (item.phase !== "importing" || !item.job || item.cancelling) return;
    this.update(key, { cancelling: true, error: undefined });
    try {
      await this.deps.cancelJob(item.job.id);
      // The stream ends with CANCELLED; a stream that gave up earlier is not there to say it.
      const now = this.find(key);
      if (now?.job && now.phase === "importing" && !this.work.has(key)) {
        this.update(key, { phase: "cancelled", job: { ...now.job, status: "CANCELLED" } });
      }
    } catch (error) {
      this.update(key, { error });
    } finally {
      this.update(key, { cancelling: false });
    }
  }

  /** Follows an item's job again after its stream gave up (the error's "Try again"). */
  retryFollowing(key: string): void {
    const item = this.find(key);
    if (!item?.job || item.phase !== "importing" || this.work.has(key)) return;
    this.update(key, { error: undefined });
    this.follow(key, item.job.id);
  }

  /** Takes an ended item off the list. */
  dismiss(key: string): void {
    const item = this.find(key);
    if (!item || item.phase === "queued" || item.phase === "uploading" || item.phase === "importing") return;
    this.items = this.items.filter((entry) => entry.key !== key);
    this.changed();
  }

  /** Stops every upload and stream (the page was left); started jobs go on in the background. */
  dispose(): void {
    for (const controller of this.work.values()) controller.abort();
    this.work.clear();
    for (const item of this.items) {
      if (item.phase === "queued" || item.phase === "uploading") this.update(item.key, { phase: "cancelled", upload: undefined });
    }
    this.files.clear();
    this.uploading = null;
  }

  private nextKey() {
    this.counter += 1;
    return `import-${this.counter}`;
  }

  private startedFields(started: StartedImport): Omit<ImportItem, "key" | "kind" | "label"> {
    return {
      phase: phaseOfJob(started.status),
      noteId: started.noteId,
      noteTitle: started.noteTitle,
      duplicateOf: started.duplicateOf,
      upload: undefined,
      job: { id: started.jobId, status: started.status, progress: 0, stage: null, errorMessage: null },
    };
  }

  private find(key: string) {
    return this.items.find((item) => item.key === key);
  }

  private update(key: string, change: Partial<ImportItem>) {
    let found = false;
    this.items = this.items.map((item) => {
      if (item.key !== key) return item;
      found = true;
      return { ...item, ...change };
    });
    if (found) this.changed();
  }

  private changed() {
    for (const listener of this.listeners) listener();
  }

  /** Starts the next queued upload when none is running. */
  private pump() {
    if (this.uploading) return;
    const next = this.items.find((item) => item.phase === "queued");
    const file = next && this.files.get(next.key);
    if (!next || !file) return;
    void this.uploadOne(next.key, file);
  }

  private async uploadOne(key: string, file: File) {
    const controller = new AbortController();
    this.uploading = key;
    this.work.set(key, controller);
    this.update(key, { phase: "uploading", upload: { loaded: 0, total: file.size } });
    try {
      const started = await this.deps.upload(file, {
        signal: controller.signal,
        onProgress: (upload) => {
          if (!controller.signal.aborted) this.update(key, { upload });
        },
      });
      if (controller.signal.aborted) return;
      this.update(key, this.startedFields(started));
      this.work.delete(key);
      if (!isFinal(started.status)) this.follow(key, started.jobId);
    } catch (error) {
      if (!controller.signal.aborted && !isAbort(error)) this.update(key, { phase: "failed", upload: undefined, error });
    } finally {
      if (this.work.get(key) === controller) this.work.delete(key);
      this.files.delete(key);
      if (this.uploading === key) this.uploading = null;
      this.pump();
    }
  }

  /** Reads the job's events until it ends; a stream that breaks or ends early is opened again a few times. */
  private follow(key: string, jobId: string) {
    const controller = new AbortController();
    this.work.set(key, controller);
    const pause = this.deps.pause ?? wait;
    void (async () => {
      let failures = 0;
      let lastError: unknown;
      while (!controller.signal.aborted) {
        let moved = false;
        try {
          for await (const event of this.deps.events(jobId, controller.signal)) {
            const item = this.find(key);
            if (!item?.job) return;
            const job = applyJobEvent(item.job, event);
            if (job === item.job) continue;
            moved = true;
            this.update(key, { job, phase: phaseOfJob(job.status) });
            if (isFinal(job.status)) return;
          }
        } catch (error) {
          if (controller.signal.aborted) return;
          lastError = error;
        }
        failures = moved ? 1 : failures + 1;
        if (failures > MAX_STREAM_RETRIES) {
          this.update(key, {
            error:
              lastError ??
              new StudyApiError(0, "STREAM_ENDED", "The import's progress stopped arriving. Follow it again, or see it on the imports page."),
          });
          return;
        }
        await pause(1000 * 2 ** (failures - 1), controller.signal);
      }
    })().finally(() => {
      if (this.work.get(key) === controller) this.work.delete(key);
    });
  }
}
