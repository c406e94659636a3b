import { startConsumer, type AmqpConnection } from "@study/events";
import type { Logger } from "@study/platform";
import type { FileStorage } from "../../application/ports/file-storage.port";
import type { ProcessImport } from "../../application/process-import";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

/** The worker's queue is `<exchange>.media-worker` (its own name: see domain-events-consumer.ts). */
export const WORKER_CONSUMER_NAME = "media-worker";

export interface ImportWorkerConsumerOptions {
  connection: AmqpConnection;
  db: PrismaClient;
  exchange: string;
  logger: Logger;
  processImport: ProcessImport;
  storage: FileStorage;
  /** Imports run at once by this process (the channel's prefetch). */
  concurrency: number;
  /** Aborted when the process shuts down: running imports stop and their messages stay unacked. */
  shutdown: AbortSignal;
}

/**
 * The media worker's consumer: `media.import.requested.v1` runs the import pipeline (outside any database
 * transaction: the inbox row is written after it; a redelivery of a finished job is dropped by StartJob),
 * `media.note.deleted.v1` deletes the note's stored files (deleting a missing file is a no-op, so a
 * redelivery is harmless).
 */
export function startImportWorkerConsumer(options: ImportWorkerConsumerOptions): Promise<void> {
  return startConsumer<Prisma.TransactionClient>({
    connection: options.connection,
    consumer: WORKER_CONSUMER_NAME,
    db: options.db,
    exchange: options.exchange,
    logger: options.logger,
    prefetch: options.concurrency,
    inbox: "after",
    handlers: {
      importRequested: async (event) => {
        const outcome = await options.processImport.run(event.jobId, options.shutdown);
        options.logger.info({ jobId: event.jobId, outcome }, "import handled");
      },
      noteDeleted: async (event) => {
        for (const key of event.storageKeys) await options.storage.delete(key);
        if (event.storageKeys.length > 0) options.logger.info({ noteId: event.noteId, files: event.storageKeys.length }, "files of a deleted note removed");
      },
    },
  });
}
