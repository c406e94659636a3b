import { startConsumer, type AmqpConnection } from "@study/events";
import type { Logger } from "@study/platform";
import type { HandleCourseDeleted } from "../../application/handle-course-deleted";
import type { HandleUserRegistered } from "../../application/handle-user-registered";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

/** Names the service's queues (`<exchange>.notifications`) and its inbox rows. */
export const CONSUMER_NAME = "notifications";

export interface DomainEventsConsumerOptions {
  connection: AmqpConnection;
  db: PrismaClient;
  exchange: string;
  logger: Logger;
  handleUserRegistered: HandleUserRegistered<Prisma.TransactionClient>;
  handleCourseDeleted: HandleCourseDeleted<Prisma.TransactionClient>;
}

/** Subscribes to the events that notify a user; each handler writes in the consumer's inbox transaction. */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<void> {
  return startConsumer<Prisma.TransactionClient>({
    connection: options.connection,
    consumer: CONSUMER_NAME,
    db: options.db,
    exchange: options.exchange,
    logger: options.logger,
    handlers: {
      userRegistered: (event, _envelope, tx) => options.handleUserRegistered.execute(event, tx),
      courseDeleted: (event, envelope, tx) =>
        options.handleCourseDeleted.execute({ userId: envelope.userId, courseName: event.name }, tx),
    },
  });
}
