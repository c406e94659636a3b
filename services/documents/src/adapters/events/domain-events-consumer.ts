import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { DeleteCourseDocuments } from "../../application/delete-document";
import type { Prisma } from "../../generated/prisma/client";

/** Names the service's queue (`<exchange>.documents`) and its inbox rows. */
export const CONSUMER_NAME = "documents";

export interface DomainEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  deleteCourseDocuments: DeleteCourseDocuments;
}

/**
 * The service's consumer: a deleted course takes its documents with it (their files go through the worker's
 * DocumentDeleted handling, like a single delete). Written outside the inbox transaction ("after"): the delete
 * is idempotent, so a redelivery finds nothing left to delete.
 */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    inbox: "after",
    handlers: {
      courseDeleted: async (event, envelope) => {
        const deleted = await options.deleteCourseDocuments.execute(envelope.userId, event.courseId);
        if (deleted > 0) options.logger.info({ courseId: event.courseId, documents: deleted }, "documents of a deleted course removed");
      },
    },
  });
}
