import Stripe from "stripe";
import { ProcessorError, type PaymentProcessor } from "../../application/ports/payment-processor.port";

export interface StripeSettings {
  secretKey: string;
  /** The API's address; Stripe's own by default, the test kit's stand-in locally and in tests. */
  apiUrl?: string;
  /** Currency of payouts (ISO code, lower case). */
  currency: string;
  timeoutMs: number;
}

/** The official SDK, pointed at `apiUrl` when one is given (host, port and protocol taken from it). */
export function createStripeClient(settings: StripeSettings): Stripe {
  const url = settings.apiUrl ? new URL(settings.apiUrl) : undefined;
  return new Stripe(settings.secretKey, {
    // Retries are ours (idempotency keys on every create; the outbox retries what must happen).
    maxNetworkRetries: 0,
    timeout: settings.timeoutMs,
    telemetry: false,
    ...(url
      ? { host: url.hostname, port: url.port || (url.protocol === "https:" ? 443 : 80), protocol: url.protocol === "https:" ? "https" : "http" }
      : {}),
  });
}

/** The payment processor port on Stripe: customers, payouts, free periods on subscriptions. */
export class StripePaymentProcessor implements PaymentProcessor {
  constructor(
    private readonly stripe: Stripe,
    private readonly currency: string,
  ) {}

  async createCustomer(input: { userId: string; email: string; name: string }, idempotencyKey: string): Promise<{ customerId: string }> {
    const customer = await call(() =>
      this.stripe.customers.create({ email: input.email, name: input.name, metadata: { userId: input.userId } }, { idempotencyKey }),
    );
    return { customerId: customer.id };
  }

  /**
   * A payout of the withdrawn amount. Stripe pays out to the platform's configured external account; the user,
   * customer and withdrawal travel in its metadata, which the payout.paid / payout.failed webhooks bring back.
   */
  async createPayout(
    input: { withdrawalId: string; userId: string; customerId: string; amountCents: number },
    idempotencyKey: string,
  ): Promise<{ payoutId: string }> {
    const payout = await call(() =>
      this.stripe.payouts.create(
        {
          amount: input.amountCents,
          currency: this.currency,
          description: `Referral credit withdrawal ${input.withdrawalId}`,
          metadata: { withdrawalId: input.withdrawalId, userId: input.userId, customerId: input.customerId },
        },
        { idempotencyKey },
      ),
    );
    return { payoutId: payout.id };
  }

  /**
   * A free period: the subscription's trial is moved to `until`, so the next charge happens then and nothing is
   * prorated — Stripe's documented way to give a subscriber free time.
   */
  async extendSubscription(input: { subscriptionId: string; until: Date }, idempotencyKey: string): Promise<void> {
    await call(() =>
      this.stripe.subscriptions.update(
        input.subscriptionId,
        { trial_end: Math.floor(input.until.getTime() / 1000), proration_behavior: "none" },
        { idempotencyKey },
      ),
    );
  }
}

/** Stripe's errors as ProcessorErrors: no answer, 5xx, rate limits and lock timeouts are transient. */
async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toProcessorError(error);
  }
}

export function toProcessorError(error: unknown): ProcessorError {
  if (!(error instanceof Stripe.errors.StripeError)) return new ProcessorError("The payment processor failed", true, error);
  const transient =
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    error.code === "lock_timeout" ||
    (error.statusCode ?? 0) >= 500;
  const what = transient ? "The payment processor is unavailable" : "The payment processor refused the request";
  return new ProcessorError(`${what}: ${error.message}`, transient, error);
}
