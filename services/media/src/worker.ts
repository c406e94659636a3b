import "./instrumentation";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prismaOptions } from "@study/db";
import { runMain } from "@study/platform";
import { startJobWorker, startProcess, type ProcessContext } from "@study/runtime";
import { FfmpegAudioProcessor } from "./adapters/audio/ffmpeg-audio-processor";
import { PrismaImportJobRepository } from "./adapters/db/prisma-import-job-repository";
import { logRefusalsTo, OutboundUrlPolicy } from "./adapters/download/outbound-url-policy";
import { SafeHttpDownloader } from "./adapters/download/safe-http-downloader";
import { startImportWorkerConsumer } from "./adapters/events/import-worker-consumer";
import { createFileStorage } from "./adapters/storage/create-file-storage";
import { createSummarizer } from "./adapters/summary/create-summarizer";
import { createTranscriber } from "./adapters/transcription/create-transcriber";
import { YtDlpVideoSource } from "./adapters/video/yt-dlp-video-source";
import { CompleteJob } from "./application/complete-job";
import { FailJob } from "./application/fail-job";
import { ProcessImport } from "./application/process-import";
import { ReportProgress } from "./application/report-progress";
import { StartJob } from "./application/start-job";
import { workerConfigSchema, type WorkerConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { LocalScratchSpace } from "@study/storage";
import type { Pool } from "pg";

/**
 * The media worker (`node services/media/dist/worker.js`): consumes import work from RabbitMQ and runs the
 * pipeline; scale out by running more processes. No gRPC server; the runtime serves `GET /health/live` on
 * MEDIA_WORKER_HEALTH_PORT when set. On SIGTERM running imports are aborted and their messages go through the
 * retry queue (before the broker connection closes), so the broker hands them to another worker (startJobWorker).
 */
const mediaWorker = {
  kind: "worker" as const,
  name: "media-worker",
  configSchema: workerConfigSchema,
  createDatabase: (_config: WorkerConfig, pool: Pool) => new PrismaClient(prismaOptions(pool)),
  healthPort: (config: WorkerConfig) => config.MEDIA_WORKER_HEALTH_PORT,
  async compose(context: ProcessContext<PrismaClient, WorkerConfig>) {
    const { config, logger, db } = context;
    const jobs = new PrismaImportJobRepository(db);
    const policy = OutboundUrlPolicy.fromSetting(config.MEDIA_DOWNLOAD_ALLOWLIST, undefined, logRefusalsTo(logger));
    const audio = new FfmpegAudioProcessor();
    const storage = createFileStorage(config);
    const failJob = new FailJob(jobs);
    await startJobWorker(context, {
      jobs: "imports",
      workRoot: config.MEDIA_WORK_DIR ?? join(tmpdir(), "study-media-work"),
      concurrency: config.MEDIA_WORKER_CONCURRENCY,
      start: ({ link, workDirectory }) =>
        startImportWorkerConsumer({
          ...link,
          processImport: new ProcessImport({
            jobs,
            startJob: new StartJob(jobs),
            reportProgress: new ReportProgress(jobs),
            completeJob: new CompleteJob(jobs),
            failJob,
            storage,
            downloader: new SafeHttpDownloader({ policy }),
            videoSource: new YtDlpVideoSource({ policy, maxFileSizeBytes: config.MEDIA_MAX_DOWNLOAD_BYTES }),
            audio,
            transcriber: createTranscriber(config, { audioProcessor: audio, workDirectory }),
            summarizer: createSummarizer(config),
            logger,
            scratch: new LocalScratchSpace(workDirectory),
            maxDownloadBytes: config.MEDIA_MAX_DOWNLOAD_BYTES,
            downloadTimeoutMs: config.MEDIA_DOWNLOAD_TIMEOUT_MS,
            maxAttempts: config.MEDIA_MAX_ATTEMPTS,
            watchIntervalMs: config.MEDIA_CANCEL_CHECK_MS,
          }),
          failJob,
          storage,
          maxImportAttempts: config.MEDIA_MAX_ATTEMPTS,
        }),
    });
    logger.info({ concurrency: config.MEDIA_WORKER_CONCURRENCY }, "media worker started");
  },
};

runMain(() => startProcess(mediaWorker));
