import "./instrumentation";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prismaOptions } from "@study/db";
import { runMain } from "@study/platform";
import { startProcess, type ProcessContext } from "@study/runtime";
import { LocalScratchSpace, processScratchFolder, removeScratchOfStoppedProcesses } from "@study/storage";
import { PrismaDocumentRepository } from "./adapters/db/prisma-document-repository";
import { createEmbeddingProvider } from "./adapters/embeddings/openai-embedding-provider";
import { startExtractionWorkerConsumer } from "./adapters/events/extraction-worker-consumer";
import { createTextExtractor } from "./adapters/extraction/text-extractor";
import { prepareChunksOrKeywordOnly } from "./application/prepare-chunks";
import { ProcessDocument } from "./application/process-document";
import { documentStorage, extractionLimits, workerConfigSchema, type WorkerConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import type { Pool } from "pg";

/**
 * The documents worker (`node services/documents/dist/worker.js`): consumes `documents.document.uploaded.v1`
 * and extracts the text (OCR included), then stores it with its search chunks; also removes the files of deleted
 * documents. Scale out by running more processes. No gRPC server; the runtime serves `GET /health/live` on
 * DOCUMENTS_WORKER_HEALTH_PORT when set. On SIGTERM running extractions are aborted (their tools killed) and
 * their messages go back to the broker for another worker.
 */
const documentsWorker = {
  kind: "worker" as const,
  name: "documents-worker",
  configSchema: workerConfigSchema,
  createDatabase: (_config: WorkerConfig, pool: Pool) => new PrismaClient(prismaOptions(pool)),
  healthPort: (config: WorkerConfig) => config.DOCUMENTS_WORKER_HEALTH_PORT,
  async compose({ config, logger, db, amqp, lifecycle }: ProcessContext<PrismaClient, WorkerConfig>) {
    const shutdown = new AbortController();
    const documents = new PrismaDocumentRepository(db);
    const storage = documentStorage(config);
    const embeddings = createEmbeddingProvider(config);
    // One folder per worker process; folders of workers that died (SIGKILL, crash) are removed at start.
    const workRoot = config.DOCUMENTS_WORK_DIR ?? join(tmpdir(), "study-documents-work");
    await removeScratchOfStoppedProcesses(workRoot, (folder) => logger.info({ folder }, "removed the temporary files of a stopped worker"));
    const workDirectory = processScratchFolder(workRoot);
    const processDocument = new ProcessDocument({
      documents,
      storage,
      scratch: new LocalScratchSpace(workDirectory),
      extractor: createTextExtractor({ temporaryDirectory: workDirectory }),
      prepareChunks: (pages, signal) => prepareChunksOrKeywordOnly(pages, embeddings, logger, signal),
      limits: extractionLimits(config),
      logger,
      maxAttempts: config.DOCUMENTS_MAX_ATTEMPTS,
    });
    const consumer = await startExtractionWorkerConsumer({
      connection: amqp,
      db,
      exchange: config.EVENT_EXCHANGE,
      logger,
      processDocument,
      documents,
      storage,
      concurrency: config.DOCUMENTS_WORKER_CONCURRENCY,
      shutdown: shutdown.signal,
      maxAttempts: config.DOCUMENTS_MAX_ATTEMPTS,
    });
    // Registered after the broker, so it runs before it closes: abort running extractions first, and wait until
    // their messages are back with the broker.
    lifecycle.onStop(
      "running extractions",
      async () => {
        shutdown.abort();
        await Promise.race([consumer.idle(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
        await rm(workDirectory, { recursive: true, force: true });
      },
      { timeoutMs: 12_000 },
    );
    logger.info({ concurrency: config.DOCUMENTS_WORKER_CONCURRENCY, semanticSearch: embeddings !== null }, "documents worker started");
  },
};

runMain(() => startProcess(documentsWorker));
