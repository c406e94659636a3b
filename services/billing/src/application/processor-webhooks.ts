import type { Logger } from "@study/platform";
import type { Clock } from "@study/platform/clock";
import { createEvent } from "@study/events/envelope";
import { SOURCE } from "./billing-events";
import type { BillingStore } from "./ports/billing-store.port";
import type { ProcessorEventInterpreter, ProcessorSubscriptionSnapshot, WebhookVerifier } from "./ports/processor-events.port";
import { recordPayment } from "./first-payment";
import { refreshEntitlement } from "./refresh-entitlement";
import type { CompleteWithdrawal, ReturnWithdrawal } from "./send-payout";

/**
 * A processor webhook arrives: its signature is verified over the raw body (WEBHOOK_FAILURE otherwise), the event
 * is stored once per id together with processor_event.received in the outbox, and the answer goes back at once.
 * The processor retries an unanswered webhook: a redelivery finds the stored id and changes nothing.
 */
export class ReceiveProcessorWebhook {
  constructor(
    private readonly store: BillingStore,
    private readonly verifier: WebhookVerifier,
  ) {}

  async execute(payload: Uint8Array, signature: string): Promise<{ eventId: string; eventType: string; duplicate: boolean }> {
    const event = this.verifier.verify(payload, signature);
    const received = createEvent(SOURCE, "", { $case: "processorEventReceived", value: { eventId: event.id, eventType: event.type } });
    const stored = await this.store.saveProcessorEvent(event, [received]);
    return { eventId: event.id, eventType: event.type, duplicate: !stored };
  }
}

/**
 * Applies a stored processor event (consumer of processor_event.received): payouts settle withdrawals, subscription
 * changes update the user's subscription and entitlement. Every effect is idempotent, and the event is marked
 * processed last, so a retry after a failure repeats nothing that already happened.
 */
export class ApplyProcessorEvent {
  constructor(
    private readonly deps: {
      store: BillingStore;
      interpreter: ProcessorEventInterpreter;
      completeWithdrawal: CompleteWithdrawal;
      returnWithdrawal: ReturnWithdrawal;
      /** price id → plan name (the configured plans). */
      planOfPrice: (priceId: string) => string;
      clock: Clock;
      logger: Pick<Logger, "info" | "warn">;
    },
  ) {}

  async execute(eventId: string): Promise<void> {
    const { store, interpreter, clock, logger } = this.deps;
    const event = await store.findProcessorEvent(eventId);
    if (!event) {
      logger.warn({ eventId }, "processor event not stored; nothing to apply");
      return;
    }
    if (event.processedAt) return;
    const facts = await interpreter.interpret(event);
    switch (facts.kind) {
      case "payout_paid":
      case "payout_failed": {
        const withdrawal =
          (await store.findWithdrawalByPayment(facts.payoutId)) ?? (facts.withdrawalId ? await store.findWithdrawal(facts.withdrawalId) : null);
        if (!withdrawal) {
          logger.warn({ eventId, payoutId: facts.payoutId }, "payout event for an unknown withdrawal");
          break;
        }
        if (!withdrawal.processorPaymentId) await store.attachPayment(withdrawal.id, facts.payoutId);
        if (facts.kind === "payout_paid") await this.deps.completeWithdrawal.execute(withdrawal.id);
        else await this.deps.returnWithdrawal.execute(withdrawal.id, `The payout failed: ${facts.reason}`);
        break;
      }
      case "subscription_changed":
        await this.applySubscription(eventId, facts.subscription, event.createdAt, facts.paidAt ?? null);
        break;
      case "customer_changed": {
        const account = await store.findAccountByCustomerId(facts.customerId);
        const known = account ? await store.transaction((tx) => tx.loadEntitlementSources(account.userId)) : null;
        for (const subscription of known?.subscriptions ?? []) {
          const current = await interpreter.currentSubscription(subscription.processorSubscriptionId);
          if (current) await this.applySubscription(eventId, current, event.createdAt);
        }
        break;
      }
      case "ignored":
        logger.info({ eventId, type: event.type, why: facts.why }, "processor event ignored");
        break;
    }
    await store.markProcessorEventProcessed(eventId, clock.now());
  }

  /** Writes the subscription's state (unless a newer event did) and, for a payment with money, the user's payment. */
  private async applySubscription(
    eventId: string,
    snapshot: ProcessorSubscriptionSnapshot,
    eventAt: Date,
    paidAt: Date | null = null,
  ): Promise<void> {
    const { store, clock, logger } = this.deps;
    const account = await store.findAccountByCustomerId(snapshot.processorCustomerId);
    const userId = account?.userId ?? snapshot.userId;
    if (!userId) {
      logger.warn({ eventId, customer: snapshot.processorCustomerId }, "subscription of an unknown customer");
      return;
    }
    await store.transaction(async (tx) => {
      if (await tx.upsertSubscription(userId, this.deps.planOfPrice(snapshot.priceId), snapshot, eventAt)) {
        await refreshEntitlement(tx, userId, clock.now());
      }
      if (paidAt) await recordPayment(tx, userId, paidAt);
    });
  }
}
