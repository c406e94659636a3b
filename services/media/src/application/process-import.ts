import { AppError } from "@study/platform/errors";
import { systemClock, type Clock } from "@study/platform/clock";
import type { Logger } from "@study/platform";
import { extensionOfAudioFormat, audioFormatFromFileName, audioFormatFromMimeType } from "../domain/audio-format";
import { progressWithin, type ImportJob, type ProgressStage } from "../domain/import-job";
import { MAX_AUDIO_FILE_SIZE } from "../domain/import-request";
import { countWords } from "../domain/note";
import type { CompleteJob } from "./complete-job";
import type { FailJob } from "./fail-job";
import type { AudioDownloader } from "./ports/audio-downloader.port";
import type { AudioProcessor } from "./ports/audio-processor.port";
import type { FileStorage } from "./ports/file-storage.port";
import type { ScratchFolder, ScratchSpace } from "./ports/scratch-space.port";
import type { ImportJobRepository } from "./ports/import-job-repository.port";
import type { Summarizer } from "./ports/summarizer.port";
import type { Transcriber } from "./ports/transcriber.port";
import type { VideoSource } from "./ports/video-source.port";
import type { ReportProgress } from "./report-progress";
import type { StartJob } from "./start-job";

/** Starts of processing (deliveries of the work message) after which an interrupted job is failed. */
export const DEFAULT_MAX_ATTEMPTS = 3;
export const INTERRUPTED_TOO_OFTEN = "Processing was interrupted too many times";

export interface ProcessImportDependencies {
  jobs: Pick<ImportJobRepository, "findWithNote">;
  startJob: StartJob;
  reportProgress: ReportProgress;
  completeJob: CompleteJob;
  failJob: FailJob;
  storage: FileStorage;
  downloader: AudioDownloader;
  videoSource: VideoSource;
  audio: AudioProcessor;
  transcriber: Transcriber;
  summarizer: Summarizer;
  logger: Logger;
  /** Where each job gets its temporary folder. */
  scratch: ScratchSpace;
  maxDownloadBytes?: number;
  downloadTimeoutMs?: number;
  maxAttempts?: number;
  /** How often the job is re-read to notice a cancellation (ms). */
  watchIntervalMs?: number;
  /** Least time between two progress writes (ms). */
  progressIntervalMs?: number;
  /** Time of the progress writes' spacing (the system clock unless a test sets one). */
  clock?: Clock;
}

/** Why the work stopped without finishing: the job was cancelled/finished elsewhere, or the worker shuts down. */
class Stopped extends Error {
  constructor(readonly reason: "finished" | "shutdown") {
    super(`stopped: ${reason}`);
  }
}

const isFinishedRefusal = (error: unknown) => error instanceof AppError && (error.code === "JOB_ALREADY_FINISHED" || error.code === "NOT_FOUND");

/**
 * The import pipeline for one work message (`media.import.requested.v1`): start the job, obtain the audio
 * (stored upload, audio URL or video), convert it to speech WAV (sped up by the job's speed multiplier),
 * transcribe with progress in 25-75, map the segment times back to the original timeline, summarise, and
 * complete the job; temporary files are removed in every case.
 *
 * Outcomes: the job ends COMPLETED or FAILED (a processing error, with a clear message) and `run` returns
 * normally. A cancellation (seen in a progress refusal or by re-reading the job every few seconds) aborts
 * every adapter and returns normally too. A shutdown of the worker (`signal`) aborts the work and rejects,
 * so the message stays unacked and the broker hands it to another worker, which starts a new attempt; after
 * `maxAttempts` starts the job is failed ("Processing was interrupted too many times").
 */
export class ProcessImport {
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly deps: ProcessImportDependencies) {}

  /** Resolves when every running import has stopped and cleaned up (for an orderly shutdown). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  run(jobId: string, signal?: AbortSignal): Promise<"completed" | "failed" | "cancelled" | "skipped"> {
    const work = this.runOnce(jobId, signal);
    this.running.add(work);
    // Both outcomes only end the bookkeeping: the rejection itself is the caller's, through `work`.
    const forget = () => void this.running.delete(work);
    work.then(forget, forget);
    return work;
  }

  private async runOnce(jobId: string, signal?: AbortSignal): Promise<"completed" | "failed" | "cancelled" | "skipped"> {
    const { deps } = this;
    const current = await deps.jobs.findWithNote(jobId);
    if (!current || ["COMPLETED", "FAILED", "CANCELLED"].includes(current.job.status)) return "skipped";
    if (current.job.attempts >= (deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)) {
      return (await this.fail(jobId, INTERRUPTED_TOO_OFTEN)) ? "failed" : "skipped";
    }
    let job: ImportJob;
    try {
      ({ job } = await deps.startJob.execute(jobId));
    } catch (error) {
      if (isFinishedRefusal(error)) return "skipped";
      throw error;
    }

    const controller = new AbortController();
    const onShutdown = () => controller.abort(new Stopped("shutdown"));
    signal?.addEventListener("abort", onShutdown, { once: true });
    if (signal?.aborted) onShutdown();
    // This run is the job's attempt number and start time: a retried job counts its attempts from 0 again, so the
    // start time tells this run from a later one of the same number.
    const attempt = job.attempts;
    const startedAt = job.startedAt?.getTime() ?? null;
    const watcher = setInterval(() => {
      deps.jobs.findWithNote(jobId).then(
        (seen) => {
          const sameRun =
            seen?.job.status === "IN_PROGRESS" && seen.job.attempts === attempt && (seen.job.startedAt?.getTime() ?? null) === startedAt;
          if (!sameRun) controller.abort(new Stopped("finished"));
        },
        (error: unknown) => deps.logger.warn({ err: error, jobId }, "could not re-read the job"),
      );
    }, deps.watchIntervalMs ?? 2_000);
    watcher.unref();
    const progress = new ProgressWriter(
      jobId,
      deps.reportProgress,
      controller,
      deps.progressIntervalMs ?? 500,
      deps.logger,
      deps.clock ?? systemClock,
    );

    const folder = await deps.scratch.createFolder(`job-${jobId}-`);
    try {
      const result = await this.process(job, folder, controller.signal, progress);
      await progress.flush();
      controller.signal.throwIfAborted();
      try {
        await deps.completeJob.execute(jobId, result);
      } catch (error) {
        if (isFinishedRefusal(error) || (error instanceof AppError && error.code === "NOTE_DELETED")) return "cancelled";
        throw error;
      }
      return "completed";
    } catch (error) {
      const stopped: unknown = controller.signal.aborted ? controller.signal.reason : error;
      if (stopped instanceof Stopped) {
        if (stopped.reason === "shutdown") throw new Error("worker is shutting down; the import is left for redelivery", { cause: error });
        deps.logger.info({ jobId }, "import stopped: the job was cancelled");
        return "cancelled";
      }
      if (!(error instanceof ProcessingError) && !(error instanceof AppError && error.kind !== "internal" && error.kind !== "unavailable")) {
        // Database or broker trouble: let the message be retried rather than failing the user's import.
        if (isInfrastructureError(error)) throw error;
      }
      const message = failureMessage(error);
      deps.logger.warn({ err: error, jobId, message }, "import failed");
      return (await this.fail(jobId, message)) ? "failed" : "cancelled";
    } finally {
      clearInterval(watcher);
      signal?.removeEventListener("abort", onShutdown);
      await folder.remove().catch((error: unknown) => deps.logger.warn({ err: error, folder: folder.path }, "could not remove a temporary folder"));
    }
  }

  private async fail(jobId: string, message: string): Promise<boolean> {
    try {
      await this.deps.failJob.execute(jobId, message);
      return true;
    } catch (error) {
      if (isFinishedRefusal(error)) return false;
      throw error;
    }
  }

  private async process(job: ImportJob, folder: ScratchFolder, signal: AbortSignal, progress: ProgressWriter) {
    const { deps } = this;
    // Setup (0-25): obtain the audio.
    const obtained = await this.obtainAudio(job, folder, signal);
    progress.report("SETUP", 10);
    let probe;
    try {
      probe = await deps.audio.probe(obtained.path, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ProcessingError("Unsupported audio format: the file could not be read as audio", error);
    }
    if (!probe.hasAudio) throw new ProcessingError("Unsupported audio format: the file has no audio track");
    progress.report("SETUP", 15);
    const wavPath = folder.pathOf("speech.wav");
    try {
      await deps.audio.toSpeechWav(obtained.path, wavPath, { speed: job.speedMultiplier, signal });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ProcessingError("Unsupported audio format: the audio could not be converted", error);
    }
    progress.report("SETUP", 25);

    // Transcription (25-75).
    progress.report("TRANSCRIPTION", 25);
    let transcript;
    try {
      transcript = await deps.transcriber.transcribe(wavPath, {
        signal,
        onProgress: (fraction) => progress.report("TRANSCRIPTION", progressWithin("TRANSCRIPTION", fraction)),
      });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ProcessingError(`Transcription failed: ${(error as Error).message}`, error);
    }
    progress.report("TRANSCRIPTION", 75);
    const speed = job.speedMultiplier;
    const round = (seconds: number) => Math.round(seconds * 1000) / 1000;
    const segments = transcript.segments
      .filter((segment) => segment.text.trim().length > 0)
      .map((segment) => ({
        text: segment.text.trim(),
        startTime: round(segment.startTime * speed),
        endTime: round(segment.endTime * speed),
        speaker: segment.speaker ?? null,
        ...(segment.confidence !== undefined ? { confidence: clampConfidence(segment.confidence) } : {}),
      }));
    const text = transcript.text.trim();
    if (text.length === 0) throw new ProcessingError("Transcription failed: no speech was recognised in the audio");

    // Content processing and summary (75-95).
    progress.report("CONTENT_PROCESSING", 75);
    let summary: string;
    try {
      summary = await deps.summarizer.summarize(text, { signal });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ProcessingError(`Summary failed: ${(error as Error).message}`, error);
    }
    progress.report("CONTENT_PROCESSING", 95);
    progress.report("NOTE_CREATION", 97);
    const duration = probe.durationSeconds > 0 ? probe.durationSeconds : transcript.durationSeconds * speed;
    deps.logger.info({ jobId: job.id, words: countWords(text), segments: segments.length, duration }, "import transcribed");
    return {
      transcript: text,
      summary,
      segments,
      duration: Math.round(duration * 100) / 100,
      language: transcript.language,
      confidence: transcript.confidence === undefined ? undefined : clampConfidence(transcript.confidence),
      mimeType: obtained.mimeType ?? job.mimeType ?? undefined,
      fileSize: obtained.size ?? job.fileSize ?? undefined,
      originalFilename: obtained.fileName ?? job.originalFilename ?? undefined,
    };
  }

  private async obtainAudio(
    job: ImportJob,
    folder: ScratchFolder,
    signal: AbortSignal,
  ): Promise<{ path: string; mimeType?: string; size?: number; fileName?: string }> {
    const { deps } = this;
    if (job.type === "AUDIO_UPLOAD") {
      if (!job.storageKey) throw new ProcessingError("The uploaded file is missing");
      const format = audioFormatFromMimeType(job.mimeType) ?? audioFormatFromFileName(job.originalFilename);
      const path = folder.pathOf(`source.${format ? extensionOfAudioFormat(format) : "bin"}`);
      try {
        await deps.storage.download(job.storageKey, path);
      } catch (error) {
        throw new ProcessingError("The uploaded file could not be read from storage", error);
      }
      signal.throwIfAborted();
      return { path };
    }
    if (!job.sourceUrl) throw new ProcessingError("The import has no source URL");
    if (job.type === "VIDEO_IMPORT") {
      try {
        const path = await deps.videoSource.downloadAudio(job.sourceUrl, folder.path, signal);
        // The extracted audio is the note's file: its size and name belong in the metadata as for other imports.
        const { size, fileName } = await folder.describe(path);
        return { path, mimeType: "audio/mpeg", size, fileName };
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ProcessingError(`Video download failed: ${(error as Error).message}`, error);
      }
    }
    try {
      const file = await deps.downloader.download(job.sourceUrl, folder.pathOf("source"), {
        maxBytes: deps.maxDownloadBytes ?? MAX_AUDIO_FILE_SIZE,
        timeoutMs: deps.downloadTimeoutMs ?? 10 * 60_000,
        signal,
      });
      return {
        path: file.path,
        size: file.size,
        fileName: file.fileName,
        mimeType: audioFormatFromMimeType(file.contentType) ? file.contentType : undefined,
      };
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ProcessingError(`Download failed: ${(error as Error).message}`, error);
    }
  }
}

/** An engine's score kept within 0-1: rounding may take it just past either end, which the domain refuses. */
const clampConfidence = (score: number) => Math.min(1, Math.max(0, score));

/** A failure of the import itself (bad input, engine error): the job fails with this message. */
class ProcessingError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

function failureMessage(error: unknown): string {
  if (error instanceof ProcessingError || error instanceof AppError) return error.message;
  return `Processing failed: ${(error as Error)?.message ?? String(error)}`;
}

/** Errors of the worker's own infrastructure (database, broker), worth a broker retry rather than a failed import. */
function isInfrastructureError(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name ?? "";
  const codeValue = (error as { code?: unknown } | null)?.code;
  const code = typeof codeValue === "string" ? codeValue : "";
  return (
    name.startsWith("PrismaClient") || /^P\d{4}$/.test(code) || code === "ECONNREFUSED" || (error instanceof AppError && error.kind === "unavailable")
  );
}

/**
 * Writes progress at most every `intervalMs` (the latest value wins) and only when it grew; a refusal because
 * the job finished (cancelled) aborts the work.
 */
class ProgressWriter {
  private pending: { stage: ProgressStage; progress: number } | null = null;
  private written = -1;
  private writtenStage: ProgressStage | null = null;
  private lastWrite = 0;
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly jobId: string,
    private readonly reportProgress: ReportProgress,
    private readonly controller: AbortController,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  report(stage: ProgressStage, progress: number): void {
    const latest = this.pending ?? { stage: this.writtenStage, progress: this.written };
    const newStage = stage !== latest.stage;
    if (progress < latest.progress || (progress === latest.progress && !newStage)) return;
    this.pending = { stage, progress };
    // The first report of a stage is written at once, so that every stage shows (transcribers may report in bursts).
    const wait = newStage ? 0 : this.lastWrite + this.intervalMs - this.clock.now().getTime();
    if (wait <= 0) this.write();
    else this.timer ??= setTimeout(() => this.write(), wait);
  }

  async flush(): Promise<void> {
    if (this.pending) this.write();
    await this.writing;
  }

  private write(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = this.pending;
    this.pending = null;
    if (!next || this.controller.signal.aborted) return;
    this.lastWrite = this.clock.now().getTime();
    this.written = next.progress;
    this.writtenStage = next.stage;
    this.writing = this.writing.then(() =>
      this.reportProgress.execute(this.jobId, next.stage, next.progress).then(
        () => undefined,
        (error: unknown) => {
          if (isFinishedRefusal(error)) this.controller.abort(new Stopped("finished"));
          else this.logger.warn({ err: error, jobId: this.jobId }, "could not record progress");
        },
      ),
    );
  }
}
