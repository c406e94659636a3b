import "./instrumentation";
import { readdir, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prismaOptions } from "@study/db";
import { AmqpConnection, startOutboxRelay } from "@study/events";
import { createLogger, Lifecycle, loadConfig, runMain, type Logger } from "@study/platform";
import { FfmpegAudioProcessor } from "./adapters/audio/ffmpeg-audio-processor";
import { PrismaImportJobRepository } from "./adapters/db/prisma-import-job-repository";
import { OutboundUrlPolicy } from "./adapters/download/outbound-url-policy";
import { SafeHttpDownloader } from "./adapters/download/safe-http-downloader";
import { startImportWorkerConsumer } from "./adapters/events/import-worker-consumer";
import { createFileStorage } from "./adapters/storage/create-file-storage";
import { createSummarizer } from "./adapters/summary/create-summarizer";
import { createTranscriber } from "./adapters/transcription/create-transcriber";
import { YtDlpVideoSource } from "./adapters/video/yt-dlp-video-source";
import { CompleteJob } from "./application/complete-job";
import { FailJob } from "./application/fail-job";
import { ProcessImport } from "./application/process-import";
import { LocalScratchSpace } from "./adapters/scratch/local-scratch-space";
import { ReportProgress } from "./application/report-progress";
import { StartJob } from "./application/start-job";
import { workerConfigSchema } from "./config";
import { PrismaClient } from "./generated/prisma/client";

/**
 * The media worker (`node services/media/dist/worker.js`): consumes import work from RabbitMQ and runs the
 * pipeline; scale out by running more processes. No gRPC server; `GET /health/live` on
 * MEDIA_WORKER_HEALTH_PORT when set. On SIGTERM running imports are aborted and their messages left unacked,
 * so the broker hands them to another worker.
 */
async function main(): Promise<void> {
  const config = loadConfig(workerConfigSchema);
  const logger = createLogger("media-worker", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  lifecycle.listenForSignals();

  const db = new PrismaClient(prismaOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE));
  lifecycle.onStop("database", () => db.$disconnect());
  const amqp = new AmqpConnection(config.RABBITMQ_URL, logger, "media-worker");
  lifecycle.onStop("rabbitmq", () => amqp.close());
  await amqp.start(5_000);
  const relay = await startOutboxRelay({ db, databaseUrl: config.DATABASE_URL, amqp, exchange: config.EVENT_EXCHANGE, logger });
  lifecycle.onStop("outbox relay", () => relay.stop());

  const shutdown = new AbortController();
  // Registered last, so it runs first: abort running imports before the broker connection closes.
  const jobs = new PrismaImportJobRepository(db);
  const policy = OutboundUrlPolicy.fromSetting(config.MEDIA_DOWNLOAD_ALLOWLIST);
  const audio = new FfmpegAudioProcessor();
  const storage = createFileStorage(config);
  // One folder per worker process; folders of workers that died (SIGKILL, crash) are removed at start.
  const workRoot = config.MEDIA_WORK_DIR ?? join(tmpdir(), "study-media-work");
  await removeFoldersOfDeadWorkers(workRoot, logger);
  const workDirectory = join(workRoot, `worker-${process.pid}`);
  const failJob = new FailJob(jobs);
  const processImport = new ProcessImport({
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
  });
  await startImportWorkerConsumer({
    connection: amqp,
    db,
    exchange: config.EVENT_EXCHANGE,
    logger,
    processImport,
    failJob,
    storage,
    concurrency: config.MEDIA_WORKER_CONCURRENCY,
    shutdown: shutdown.signal,
    maxImportAttempts: config.MEDIA_MAX_ATTEMPTS,
  });
  lifecycle.onStop("running imports", async () => {
    shutdown.abort();
    await Promise.race([processImport.idle(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await rm(workDirectory, { recursive: true, force: true });
  });

  if (config.MEDIA_WORKER_HEALTH_PORT > 0) {
    const health = createServer((request, response) => {
      response.writeHead(request.url === "/health/live" ? 200 : 404, { "content-type": "application/json" }).end('{"status":"ok"}');
    });
    await new Promise<void>((resolve) => health.listen(config.MEDIA_WORKER_HEALTH_PORT, resolve));
    lifecycle.onStop("health server", () => new Promise((resolve) => health.close(resolve)));
  }
  logger.info({ concurrency: config.MEDIA_WORKER_CONCURRENCY }, "media worker started");
}

/** Removes `worker-<pid>` folders whose process no longer runs (on this host: folders are per host). */
async function removeFoldersOfDeadWorkers(root: string, logger: Logger): Promise<void> {
  const entries = await readdir(root).catch(() => [] as string[]);
  for (const entry of entries) {
    const pid = Number(/^worker-(\d+)$/.exec(entry)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    await rm(join(root, entry), { recursive: true, force: true });
    logger.info({ folder: entry }, "removed the temporary files of a stopped worker");
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

runMain(main);
