import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { ForgetCourse, ForgetSource, IndexDocument, IndexNote } from "../../application/index-material";
import type { Prisma } from "../../generated/prisma/client";

/** Names the service's queue (`<exchange>.chat`) and its inbox rows. */
export const CONSUMER_NAME = "chat";

export interface DomainEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  indexNote: IndexNote;
  indexDocument: IndexDocument;
  forgetSource: ForgetSource;
  forgetCourse: ForgetCourse;
}

/**
 * Keeps the passage index current. A note or document event only says which record changed: the handler reads
 * the record's current state from its owner (GetNote, GetDocumentText) and replaces its passages, so that a
 * redelivered or late event writes what is true now. Those calls cannot join a database transaction, so the
 * handlers run outside the inbox transaction (`inbox: "after"`) and are idempotent themselves; a failure (an owner
 * unavailable) is retried by the broker, then dead-lettered.
 */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  const { logger } = options;
  const indexNote = async (userId: string, noteId: string) => {
    const passages = await options.indexNote.execute(userId, noteId);
    logger.debug({ noteId, passages }, "note passages indexed");
  };
  const indexDocument = async (userId: string, documentId: string) => {
    const passages = await options.indexDocument.execute(userId, documentId);
    logger.debug({ documentId, passages }, "document passages indexed");
  };
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    inbox: "after",
    handlers: {
      noteTranscribed: (event, envelope) => indexNote(envelope.userId, event.noteId),
      // A rename or new user notes (a user's notes count before the transcript is there).
      noteUpdated: (event, envelope) => indexNote(envelope.userId, event.noteId),
      noteDeleted: async (event) => {
        await options.forgetSource.execute("note", event.noteId);
      },
      documentProcessed: (event, envelope) => indexDocument(envelope.userId, event.documentId),
      // A failed document has no text: whatever it had is dropped (GetDocumentText answers DOCUMENT_NOT_PROCESSED).
      documentFailed: (event, envelope) => indexDocument(envelope.userId, event.documentId),
      documentDeleted: async (event) => {
        await options.forgetSource.execute("document", event.documentId);
      },
      courseDeleted: async (event, envelope) => {
        const forgotten = await options.forgetCourse.execute(envelope.userId, event.courseId);
        if (forgotten.passages + forgotten.sessions > 0)
          logger.info({ courseId: event.courseId, ...forgotten }, "passages and chats of a deleted course removed");
      },
    },
  });
}
