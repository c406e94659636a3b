import { consumerLinkOf, type RunningConsumer } from "@study/events";
import { AppError } from "@study/platform";
import { startJobConsumer, type JobConsumerLink } from "@study/runtime";
import type { FileStorage } from "../../application/ports/file-storage.port";
import type { FailJob } from "../../application/fail-job";
import type { ProcessImport } from "../../application/process-import";
import type { Prisma } from "../../generated/prisma/client";

/** The worker's queue is `<exchange>.media-worker` (its own name: see domain-events-consumer.ts). */
export const WORKER_CONSUMER_NAME = "media-worker";

export interface ImportWorkerConsumerOptions extends JobConsumerLink<Prisma.TransactionClient> {
  processImport: Pick<ProcessImport, "run">;
  /** Fails an import whose work message is dead-lettered (the broker gave up on it). */
  failJob: FailJob;
  storage: FileStorage;
  /** The pipeline's own limit of starts per import (MEDIA_MAX_ATTEMPTS): the broker's must be larger. */
  maxImportAttempts: number;
}

/** Shown to the user when the broker gave up on an import (infrastructure trouble, not the file's fault). */
export const GIVEN_UP_MESSAGE = "Processing failed because of a server problem; please import the file again";

/**
 * The media worker's consumer: `media.import.requested.v1` runs the import pipeline (outside any database
 * transaction: the inbox row is written after it; a redelivery of a finished job is dropped by StartJob),
 * `media.note.deleted.v1` deletes the note's stored files (deleting a missing file is a no-op, so a
 * redelivery is harmless).
 */
export function startImportWorkerConsumer(options: ImportWorkerConsumerOptions): Promise<RunningConsumer> {
  return startJobConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: WORKER_CONSUMER_NAME,
    concurrency: options.concurrency,
    maxJobAttempts: options.maxImportAttempts,
    // A dead-lettered import (e.g. the database failed on every delivery) would otherwise stay PENDING or
    // IN_PROGRESS for ever: fail it so the user learns it (a failed or finished job refuses and is left as it is).
    onDeadLetter: async (envelope) => {
      if (envelope.payload?.$case !== "importRequested") return;
      const { jobId } = envelope.payload.value;
      await options.failJob.execute(jobId, GIVEN_UP_MESSAGE).then(
        () => options.logger.warn({ jobId }, "import given up after repeated failures; job failed"),
        (error: unknown) => {
          if (error instanceof AppError && (error.code === "JOB_ALREADY_FINISHED" || error.kind === "not_found")) return;
          throw error;
        },
      );
    },
    handlers: {
      importRequested: async (event) => {
        const outcome = await options.processImport.run(event.jobId, options.shutdown);
        options.logger.info({ jobId: event.jobId, outcome }, "import handled");
      },
      noteDeleted: async (event) => {
        for (const key of event.storageKeys) await options.storage.delete(key);
        if (event.storageKeys.length > 0)
          options.logger.info({ noteId: event.noteId, files: event.storageKeys.length }, "files of a deleted note removed");
      },
    },
  });
}
