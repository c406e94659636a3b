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
    if (SUBSCRIPTION_EVENTS.has(event.type)) {
      const snapshot = snapshotOf(object);
      if (!snapshot) return { kind: "ignored", why: "a subscription without id or customer" };
      return { kind: "subscription_changed", subscription: { ...snapshot, cardFingerprint: await this.fingerprintOf(object) } };
    }
    if (INVOICE_EVENTS.has(event.type)) {
      const subscriptionId = subscriptionIdOfInvoice(object);
      if (!subscriptionId) return { kind: "ignored", why: "not about a subscription" };
      const current = await this.currentSubscription(subscriptionId);
      if (!current) return { kind: "ignored", why: "an unknown subscription" };
      return {
        kind: "subscription_changed",
        subscription: current,
        paidAt: event.type === "invoice.payment_failed" ? null : paidAtOf(object, event.createdAt),
      };
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
      const subscription = await this.stripe.subscriptions.retrieve(processorSubscriptionId);
      const snapshot = snapshotOf(subscription);
      return snapshot && { ...snapshot, cardFingerprint: await this.fingerprintOf(subscription) };
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing") return null;
      throw toProcessorError(error);
    }
  }

  /**
   * The card fingerprint of a subscription's default payment method, as Stripe reports it on the PaymentMethod
   * (`card.fingerprint`: the same card number has the same fingerprint across the account's customers). Null
   * without a card payment method.
   */
  private async fingerprintOf(subscription: unknown): Promise<string | null> {
    const method = field(subscription, "default_payment_method");
    const expanded = text(field(field(method, "card"), "fingerprint"));
    if (expanded) return expanded;
    const id = typeof method === "string" ? method : null;
    if (!id) return null;
    try {
      const paymentMethod = await this.stripe.paymentMethods.retrieve(id);
      return paymentMethod.card?.fingerprint ?? null;
    } catch (error) {
      // A payment method detached meanwhile: the subscription is kept without its card.
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing") return null;
      throw toProcessorError(error);
    }
  }
}

/** An invoice that moved money (paid with an amount above zero): when. A trial's zero invoice is no payment. */
function paidAtOf(invoice: unknown, eventAt: Date): Date | null {
  const amountPaid = numberOf(field(invoice, "amount_paid")) ?? 0;
  if (field(invoice, "status") !== "paid" || amountPaid <= 0) return null;
  return time(field(field(invoice, "status_transitions"), "paid_at")) ?? eventAt;
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
    // Read from the payment method by the interpreter (a webhook's subscription names it by id).
    cardFingerprint: null,
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
