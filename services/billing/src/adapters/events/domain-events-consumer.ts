import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import { ProcessorError } from "../../application/ports/payment-processor.port";
import type { ApplyProcessorEvent } from "../../application/processor-webhooks";
import type { RegisterBillingUser } from "../../application/register-billing-user";
import type { SendPayout } from "../../application/send-payout";
import type { Prisma } from "../../generated/prisma/client";

/** Names the service's queue (`<exchange>.billing`) and its inbox rows. */
export const CONSUMER_NAME = "billing";

export interface DomainEventsConsumerOptions extends ConsumerLink<Prisma.TransactionClient> {
  registerBillingUser: RegisterBillingUser;
  sendPayout: SendPayout;
  applyProcessorEvent: ApplyProcessorEvent;
}

/**
 * The service's consumer. Every handler calls the payment processor, which cannot join a database transaction,
 * so each is idempotent itself (`inbox: "after"`): accounts and codes are made once, processor calls carry
 * idempotency keys, a withdrawal's payout is sent only while it has none, a processor event is applied until it is
 * marked processed. A failure is retried by the broker (then dead-lettered), never acked.
 */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  return startConsumer<Prisma.TransactionClient>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    inbox: "after",
    handlers: {
      userRegistered: async (event) => {
        await options.registerBillingUser.execute({ userId: event.userId, name: event.name, email: event.email });
      },
      withdrawalRequested: async (event) => {
        try {
          await options.sendPayout.execute(event.withdrawalId);
        } catch (error) {
          // A refusal already failed the withdrawal and returned its credit: done. Anything else is retried.
          if (error instanceof ProcessorError && !error.transient) {
            options.logger.info({ withdrawalId: event.withdrawalId, reason: error.message }, "payout refused; withdrawal failed");
            return;
          }
          throw error;
        }
      },
      processorEventReceived: async (event) => {
        await options.applyProcessorEvent.execute(event.eventId);
      },
    },
  });
}
