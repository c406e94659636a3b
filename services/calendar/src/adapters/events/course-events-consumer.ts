import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { DetachCourse } from "../../application/detach-course";
import type { Prisma } from "../../generated/prisma/client";

/** Names the service's queues (`<exchange>.calendar`) and its inbox rows. */
export const CONSUMER_NAME = "calendar";

export interface CourseEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  detachCourse: DetachCourse<Prisma.TransactionClient>;
}

/**
 * Subscribes to the events of other services that change calendar events: a deleted course leaves its events
 * without a course. The detachment and its outbox rows commit in the inbox transaction.
 */
export function startCourseEventsConsumer(options: CourseEventsConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    handlers: {
      courseDeleted: async (event, envelope, tx) => {
        const detached = await options.detachCourse.execute(envelope.userId, event.courseId, tx);
        if (detached.length > 0) options.logger.info({ courseId: event.courseId, detached: detached.length }, "events of a deleted course detached");
      },
    },
  });
}
