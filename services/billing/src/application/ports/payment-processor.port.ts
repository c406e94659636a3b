import { AppError } from "@study/platform/errors";

/**
 * The payment processor (Stripe in production and in the local stand-in). Every call that creates something takes
 * an idempotency key, so that a retry after a lost answer creates nothing twice.
 */
export interface PaymentProcessor {
  createCustomer(input: { userId: string; email: string; name: string }, idempotencyKey: string): Promise<{ customerId: string }>;
  createPayout(
    input: { withdrawalId: string; userId: string; customerId: string; amountCents: number },
    idempotencyKey: string,
  ): Promise<{ payoutId: string }>;
  /** Moves the subscription's next charge to `until` without a charge now (a free period). */
  extendSubscription(input: { subscriptionId: string; until: Date }, idempotencyKey: string): Promise<void>;
}

/**
 * A failure of the processor, as the user sees it: 502 STRIPE_ERROR. `transient` tells a refusal (the processor
 * answered no: retrying changes nothing) from an outage (no answer, 5xx, rate limit: a later retry may succeed).
 */
export class ProcessorError extends AppError {
  constructor(
    message: string,
    readonly transient: boolean,
    cause?: unknown,
  ) {
    super("upstream", "STRIPE_ERROR", message, { cause });
    this.name = "ProcessorError";
  }
}
