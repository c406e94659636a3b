import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { FollowSourceNotes } from "../../application/follow-source-notes";
import type { Prisma } from "../../generated/prisma/client";

/** Names the service's queues (`<exchange>.study`) and its inbox rows. */
export const CONSUMER_NAME = "study";

export interface DomainEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  followSourceNotes: FollowSourceNotes;
}

/**
 * Follows the notes, documents and courses the material came from. The effects run in their own transactions
 * rather than the inbox's; that is safe because each is idempotent (a redelivery detaches, renames or deletes
 * what is already so), and the low prefetch keeps both transactions within the connection pool.
 */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  const { followSourceNotes, logger } = options;
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    prefetch: 2,
    handlers: {
      noteDeleted: (event, envelope) => followSourceNotes.noteDeleted(envelope.userId, event.noteId),
      noteUpdated: (event, envelope) => followSourceNotes.noteRenamed(envelope.userId, event.noteId, event.title),
      documentDeleted: (event, envelope) => followSourceNotes.documentDeleted(envelope.userId, event.documentId),
      courseDeleted: async (event, envelope) => {
        const deleted = await followSourceNotes.courseDeleted(envelope.userId, event.courseId);
        logger.info({ courseId: event.courseId, ...deleted }, "study material of a deleted course removed");
      },
    },
  });
}
