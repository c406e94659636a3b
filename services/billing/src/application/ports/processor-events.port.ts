/** A processor webhook whose signature was verified: its id, type, time and JSON body as sent. */
export interface VerifiedProcessorEvent {
  id: string;
  type: string;
  createdAt: Date;
  body: unknown;
}

/** Checks a webhook's signature over the raw body; throws AppError WEBHOOK_FAILURE when it does not hold. */
export interface WebhookVerifier {
  verify(payload: Uint8Array, signature: string): VerifiedProcessorEvent;
}

/** A processor subscription as its latest known state (the processor's own names and ids). */
export interface ProcessorSubscriptionSnapshot {
  processorSubscriptionId: string;
  processorCustomerId: string;
  /** The user named in the subscription's metadata, when the checkout put it there. */
  userId: string | null;
  status: string;
  priceId: string;
  periodStart: Date | null;
  periodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  seats: number;
  trialStart: Date | null;
  trialEnd: Date | null;
  /** The fingerprint of the default payment method's card, as the processor reports it (null: unknown, no card). */
  cardFingerprint: string | null;
}

/** What an event means for billing, read from the processor's shapes by the adapter. */
export type ProcessorEventFacts =
  | { kind: "payout_paid"; payoutId: string; withdrawalId: string | null }
  | { kind: "payout_failed"; payoutId: string; withdrawalId: string | null; reason: string }
  /** `paidAt`: the event is a payment of the subscription that moved money (an invoice paid with an amount). */
  | { kind: "subscription_changed"; subscription: ProcessorSubscriptionSnapshot; paidAt?: Date | null }
  /** Something about the customer's money changed (a refund): their subscriptions are read again. */
  | { kind: "customer_changed"; customerId: string }
  | { kind: "ignored"; why: string };

export interface ProcessorEventInterpreter {
  /** May call the processor (an invoice event names its subscription: its current state is fetched). */
  interpret(event: VerifiedProcessorEvent): Promise<ProcessorEventFacts>;
  /** The subscription's current state at the processor (null: the processor does not know it). */
  currentSubscription(processorSubscriptionId: string): Promise<ProcessorSubscriptionSnapshot | null>;
}

/** Checkout and portal pages, and reading a subscription (the processor's side of subscriptions). */
export interface SubscriptionProcessor {
  createCheckoutSession(input: {
    customerId: string;
    userId: string;
    priceId: string;
    successUrl: string;
    cancelUrl: string;
    /** A free trial of this many days before the first charge. */
    trialDays?: number;
  }): Promise<{ sessionId: string; url: string }>;
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
}
