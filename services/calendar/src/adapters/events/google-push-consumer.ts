import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { PushToGoogle } from "../../application/google/push-to-google";
import type { Prisma } from "../../generated/prisma/client";

/** Its own queue (`<exchange>.calendar-google-push`): a slow or failing Google never holds up course deletions. */
export const GOOGLE_PUSH_CONSUMER = "calendar-google-push";

export interface GooglePushConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  push: PushToGoogle;
}

/**
 * The calendar's own events, turned into changes of the user's Google Calendar: the outbox that stored each event
 * with its change is what makes the push survive a crash or an outage of Google. Changes that came from Google
 * are not sent back. The handler calls Google outside any transaction (`inbox: "after"`): it is idempotent
 * itself (the Google id of a created event is fixed in advance; patch and delete converge).
 */
export function startGooglePushConsumer(options: GooglePushConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: GOOGLE_PUSH_CONSUMER,
    inbox: "after",
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
