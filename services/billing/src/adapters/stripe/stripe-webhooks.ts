import Stripe from "stripe";
import { AppError } from "@study/platform/errors";
import type {
  ProcessorEventFacts,
  ProcessorEventInterpreter,
  ProcessorSubscriptionSnapshot,
  VerifiedProcessorEvent,
  WebhookVerifier,
} from "../../application/ports/processor-events.port";
import { toProcessorError } from "./stripe-payment-processor";

/** Seconds a signed webhook stays acceptable (Stripe's default tolerance): an older one is a replay. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Stripe's signature scheme (HMAC-SHA256 of `t.payload` with the endpoint's signing secret), through the SDK. */
export class StripeWebhookVerifier implements WebhookVerifier {
  constructor(
    private readonly stripe: Stripe,
    private readonly signingSecret: string,
  ) {}

  verify(payload: Uint8Array, signature: string): VerifiedProcessorEvent {
    if (!signature) throw webhookFailure("The Stripe-Signature header is missing");
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(Buffer.from(payload), signature, this.signingSecret, SIGNATURE_TOLERANCE_SECONDS);
    } catch (error) {
      throw webhookFailure(error instanceof Error ? error.message : "The webhook signature does not hold", error);
    }
    return { id: event.id, type: event.type, createdAt: new Date(event.created * 1000), body: event };
  }
}

function webhookFailure(reason: string, cause?: unknown): AppError {
  return new AppError("validation", "WEBHOOK_FAILURE", `Webhook refused: ${reason}`, { cause });
}

const SUBSCRIPTION_EVENTS = new Set(["customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted"]);
// Events about a subscription's money (a renewal paid or failed): the subscription's current state is fetched.
const INVOICE_EVENTS = new Set(["invoice.paid", "invoice.payment_failed", "invoice.payment_succeeded"]);

/** Reads what a Stripe event means for billing; fetches a subscription when the event only names it. */
export class StripeEventInterpreter implements ProcessorEventInterpreter {
  constructor(private readonly stripe: Stripe) {}

  async interpret(event: VerifiedProcessorEvent): Promise<ProcessorEventFacts> {
    const object = field(field(event.body, "data"), "object");
    if (event.type === "payout.paid" || event.type === "payout.failed") {
      const payoutId = text(field(object, "id"));
      if (!payoutId) return { kind: "ignored", why: "a payout event without a payout id" };
      const withdrawalId = text(field(field(object, "metadata"), "withdrawalId"));
      if (event.type === "payout.paid") return { kind: "payout_paid", payoutId, withdrawalId };
      const reason = text(field(object, "failure_message")) ?? text(field(object, "failure_code")) ?? "declined by the bank";
      return { kind: "payout_failed", payoutId, withdrawalId, reason };
    }
    if (SUBSCRIPTION_EVENTS.has(event.type)) return snapshotFacts(object);
    if (INVOICE_EVENTS.has(event.type)) {
      const subscriptionId = subscriptionIdOfInvoice(object);
      if (!subscriptionId) return { kind: "ignored", why: "not about a subscription" };
      const current = await this.currentSubscription(subscriptionId);
      return current ? { kind: "subscription_changed", subscription: current } : { kind: "ignored", why: "an unknown subscription" };
    }
    if (event.type === "charge.refunded") {
      // Charges no longer name their invoice (API 2025+): the customer's subscriptions are read again.
      const customer = field(object, "customer");
      const customerId = typeof customer === "string" ? customer : text(field(customer, "id"));
      return customerId ? { kind: "customer_changed", customerId } : { kind: "ignored", why: "a charge without a customer" };
    }
    return { kind: "ignored", why: "no billing effect" };
  }

  async currentSubscription(processorSubscriptionId: string): Promise<ProcessorSubscriptionSnapshot | null> {
    try {
      return snapshotOf(await this.stripe.subscriptions.retrieve(processorSubscriptionId));
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing") return null;
      throw toProcessorError(error);
    }
  }
}

/** The subscription an invoice belongs to: `parent.subscription_details.subscription` (current API) or `subscription`. */
function subscriptionIdOfInvoice(invoice: unknown): string | null {
  const parent = field(field(field(invoice, "parent"), "subscription_details"), "subscription");
  const legacy = field(invoice, "subscription");
  for (const candidate of [parent, legacy]) {
    if (typeof candidate === "string") return candidate;
    const id = text(field(candidate, "id"));
    if (id) return id;
  }
  return null;
}

function snapshotFacts(subscription: unknown): ProcessorEventFacts {
  const snapshot = snapshotOf(subscription);
  return snapshot ? { kind: "subscription_changed", subscription: snapshot } : { kind: "ignored", why: "a subscription without id or customer" };
}

/** A Stripe subscription object (JSON of a webhook, or the SDK's answer) as billing keeps it. */
export function snapshotOf(subscription: unknown): ProcessorSubscriptionSnapshot | null {
  const id = text(field(subscription, "id"));
  const customer = field(subscription, "customer");
  const customerId = typeof customer === "string" ? customer : text(field(customer, "id"));
  if (!id || !customerId) return null;
  const items = field(field(subscription, "items"), "data");
  const item = Array.isArray(items) ? (items[0] as unknown) : undefined;
  // The current API keeps the billing period on the items; older versions on the subscription.
  const periodStart = time(field(item, "current_period_start")) ?? time(field(subscription, "current_period_start"));
  const periodEnd = time(field(item, "current_period_end")) ?? time(field(subscription, "current_period_end"));
  return {
    processorSubscriptionId: id,
    processorCustomerId: customerId,
    userId: text(field(field(subscription, "metadata"), "userId")),
    status: text(field(subscription, "status")) ?? "incomplete",
    priceId: text(field(field(item, "price"), "id")) ?? "",
    periodStart,
    periodEnd,
    cancelAtPeriodEnd: field(subscription, "cancel_at_period_end") === true,
    seats: numberOf(field(item, "quantity")) ?? 1,
    trialStart: time(field(subscription, "trial_start")),
    trialEnd: time(field(subscription, "trial_end")),
  };
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const numberOf = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
/** Stripe's times are Unix seconds. */
const time = (value: unknown): Date | null => {
  const seconds = numberOf(value);
  return seconds === null ? null : new Date(seconds * 1000);
};
