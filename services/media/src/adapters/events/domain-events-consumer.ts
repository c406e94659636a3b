import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { DeleteCourseNotes } from "../../application/delete-course-notes";
import type { Prisma } from "../../generated/prisma/client";

/**
 * Names the service's queues (`<exchange>.media`) and its inbox rows. The media worker must consume under a
 * name of its own (e.g. `media-worker`): processes sharing a queue receive each other's events, and a message
 * for which a process has no handler goes to the dead-letter queue.
 */
export const CONSUMER_NAME = "media";

export interface DomainEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  deleteCourseNotes: DeleteCourseNotes;
}

/**
 * Subscribes to the events of other services that change notes: a deleted course takes its notes along.
 * The deletion runs in its own transactions (one per note) rather than the inbox's, which is safe because it
 * is idempotent (a redelivery deletes what is left); the low prefetch keeps the inbox transaction plus the
 * deletion's within the connection pool.
 */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    prefetch: 2,
    handlers: {
      courseDeleted: async (event, envelope) => {
        const deleted = await options.deleteCourseNotes.execute(envelope.userId, event.courseId);
        if (deleted > 0) options.logger.info({ courseId: event.courseId, deleted }, "notes of a deleted course removed");
      },
    },
  });
}
