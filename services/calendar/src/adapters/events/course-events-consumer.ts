import { startConsumer, type AmqpConnection, type RunningConsumer } from "@study/events";
import type { Logger } from "@study/platform";
import type { DetachCourse } from "../../application/detach-course";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

/** Names the service's queues (`<exchange>.calendar`) and its inbox rows. */
export const CONSUMER_NAME = "calendar";

export interface CourseEventsConsumerOptions {
  connection: AmqpConnection;
  db: PrismaClient;
  exchange: string;
  logger: Logger;
  detachCourse: DetachCourse<Prisma.TransactionClient>;
  /** The broker's retry delays (the events library's defaults when unset; tests shorten them). */
  retryDelaysMs?: number[];
}

/**
 * Subscribes to the events of other services that change calendar events: a deleted course leaves its events
 * without a course. The detachment and its outbox rows commit in the inbox transaction.
 */
export function startCourseEventsConsumer(options: CourseEventsConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    connection: options.connection,
    consumer: CONSUMER_NAME,
    db: options.db,
    exchange: options.exchange,
    logger: options.logger,
    retryDelaysMs: options.retryDelaysMs,
    handlers: {
      courseDeleted: async (event, envelope, tx) => {
        const detached = await options.detachCourse.execute(envelope.userId, event.courseId, tx);
        if (detached.length > 0) options.logger.info({ courseId: event.courseId, detached: detached.length }, "events of a deleted course detached");
      },
    },
  });
}
