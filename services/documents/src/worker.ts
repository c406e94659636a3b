import "./instrumentation";
import { prismaOptions } from "@study/db";
import { runMain } from "@study/platform";
import { startJobWorker, startProcess, type ProcessContext } from "@study/runtime";
import { PrismaDocumentRepository } from "./adapters/db/prisma-document-repository";
import { createEmbeddingProvider } from "./adapters/embeddings/openai-embedding-provider";
import { startExtractionWorkerConsumer } from "./adapters/events/extraction-worker-consumer";
import { ProcessDocument } from "./application/process-document";
import { documentStorage, workerConfigSchema, type WorkerConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { documentsWorkRoot, textReading } from "./text-reading";
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
  async compose(context: ProcessContext<PrismaClient, WorkerConfig>) {
    const { config, logger, db } = context;
    const documents = new PrismaDocumentRepository(db);
    const storage = documentStorage(config);
    const embeddings = createEmbeddingProvider(config);
    await startJobWorker(context, {
      jobs: "extractions",
      workRoot: documentsWorkRoot(config),
      concurrency: config.DOCUMENTS_WORKER_CONCURRENCY,
      start: ({ link, workDirectory }) =>
        startExtractionWorkerConsumer({
          ...link,
          processDocument: new ProcessDocument({
            documents,
            storage,
            ...textReading(config, workDirectory, embeddings, logger),
            maxAttempts: config.DOCUMENTS_MAX_ATTEMPTS,
          }),
          documents,
          storage,
          maxAttempts: config.DOCUMENTS_MAX_ATTEMPTS,
        }),
    });
    logger.info({ concurrency: config.DOCUMENTS_WORKER_CONCURRENCY, semanticSearch: embeddings !== null }, "documents worker started");
  },
};

runMain(() => startProcess(documentsWorker));
