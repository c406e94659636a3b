import { startConsumer, type AmqpConnection, type RunningConsumer } from "@study/events";
import type { Logger } from "@study/platform";
import type { PushToGoogle } from "../../application/google/push-to-google";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

/** Its own queue (`<exchange>.calendar-google-push`): a slow or failing Google never holds up course deletions. */
export const GOOGLE_PUSH_CONSUMER = "calendar-google-push";

export interface GooglePushConsumerOptions {
  connection: AmqpConnection;
  db: PrismaClient;
  exchange: string;
  logger: Logger;
  push: PushToGoogle;
  /** Delays of the retries of a push Google refused for now (rate limit, outage); the inbox's defaults if absent. */
  retryDelaysMs?: number[];
}

/**
 * The calendar's own events, turned into changes of the user's Google Calendar: the outbox that stored each event
 * with its change is what makes the push survive a crash or an outage of Google. Changes that came from Google
 * are not sent back. The handler calls Google outside any transaction (`inbox: "after"`): it is idempotent
 * itself (the Google id of a created event is fixed in advance; patch and delete converge).
 */
export function startGooglePushConsumer(options: GooglePushConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    connection: options.connection,
    consumer: GOOGLE_PUSH_CONSUMER,
    db: options.db,
    exchange: options.exchange,
    logger: options.logger,
    inbox: "after",
    retryDelaysMs: options.retryDelaysMs,
    handlers: {
      calendarEventCreated: async (event, envelope) => {
        if (!event.fromGoogle) await options.push.pushChange(envelope.userId, event.eventId);
      },
      calendarEventUpdated: async (event, envelope) => {
        if (!event.fromGoogle) await options.push.pushChange(envelope.userId, event.eventId);
      },
      calendarEventDeleted: async (event, envelope) => {
        if (!event.fromGoogle && event.googleEventId) {
          await options.push.pushDeletion(envelope.userId, event.eventId, event.googleEventId, event.googleCalendarId);
        }
      },
    },
  });
}
