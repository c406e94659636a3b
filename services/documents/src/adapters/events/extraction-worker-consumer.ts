import { consumerLinkOf, type RunningConsumer } from "@study/events";
import { startJobConsumer, type JobConsumerLink } from "@study/runtime";
import type { FileStorage } from "@study/storage/port";
import type { DocumentRepository } from "../../application/ports/document-repository.port";
import type { ProcessDocument } from "../../application/process-document";
import { documentFailed } from "../../application/document-events";
import type { Prisma } from "../../generated/prisma/client";

/** The worker's queue is `<exchange>.documents-worker` (its own name: see domain-events-consumer.ts). */
export const WORKER_CONSUMER_NAME = "documents-worker";

export interface ExtractionWorkerConsumerOptions extends JobConsumerLink<Prisma.TransactionClient> {
  processDocument: Pick<ProcessDocument, "run">;
  /** Fails a document whose work message is dead-lettered (the broker gave up on it). */
  documents: Pick<DocumentRepository, "fail">;
  storage: Pick<FileStorage, "delete">;
  /** ProcessDocument's own limit of starts per document: the broker's must be larger. */
  maxAttempts: number;
}

/** Shown to the user when the broker gave up on a document (infrastructure trouble, not the file's fault). */
export const GIVEN_UP_MESSAGE = "Processing failed because of a server problem; please upload the document again";

/**
 * The documents worker's consumer: `documents.document.uploaded.v1` reads the document (outside any database
 * transaction: the inbox row is written after it; a redelivery of a finished document is skipped), and
 * `documents.document.deleted.v1` removes its stored file (deleting a missing file is a no-op).
 */
export function startExtractionWorkerConsumer(options: ExtractionWorkerConsumerOptions): Promise<RunningConsumer> {
  return startJobConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: WORKER_CONSUMER_NAME,
    concurrency: options.concurrency,
    maxJobAttempts: options.maxAttempts,
    // A dead-lettered document (e.g. storage failed on every delivery) would otherwise stay unprocessed for ever.
    onDeadLetter: async (envelope) => {
      if (envelope.payload?.$case !== "documentUploaded") return;
      const { documentId } = envelope.payload.value;
      const failed = await options.documents.fail(documentId, GIVEN_UP_MESSAGE, (saved) => [documentFailed(saved)]);
      if (failed) options.logger.warn({ documentId }, "document given up after repeated failures; marked failed");
    },
    handlers: {
      documentUploaded: async (event) => {
        const outcome = await options.processDocument.run(event.documentId, options.shutdown);
        options.logger.info({ documentId: event.documentId, outcome }, "document handled");
      },
      documentDeleted: async (event) => {
        await options.storage.delete(event.storageKey);
        options.logger.info({ documentId: event.documentId }, "file of a deleted document removed");
      },
    },
  });
}
