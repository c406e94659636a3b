import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { assertPayable } from "../domain/withdrawal";
import type { BillingStore, Subscription } from "./ports/billing-store.port";
import type { SubscriptionProcessor } from "./ports/processor-events.port";

/**
 * A processor checkout page for one of the configured plans; the subscription arrives by webhook when paid. With
 * `trial`, a user who never subscribed starts with the free trial (`trialDays`); anyone else pays at once.
 */
export class CreateCheckoutSession {
  constructor(
    private readonly store: BillingStore,
    private readonly processor: SubscriptionProcessor,
    private readonly priceOfPlan: (plan: string) => string | undefined,
    private readonly trialDays = 0,
  ) {}

  async execute(
    userId: string,
    input: { plan: string; successUrl: string; cancelUrl: string; trial?: boolean },
  ): Promise<{ sessionId: string; url: string }> {
    requireUserId(userId);
    const priceId = this.priceOfPlan(input.plan);
    if (!priceId) throw AppError.validation(`Unknown plan ${input.plan}`, [{ field: "plan", message: "is not a plan on offer" }]);
    const account = await this.store.findAccount(userId);
    const customerId = assertPayable(account?.processorCustomerId ?? null);
    // One trial per user: a user who had a subscription (or a store purchase) pays from the start.
    const trialDays = input.trial && this.trialDays > 0 && !(await this.store.hasEverSubscribed(userId)) ? this.trialDays : undefined;
    return this.processor.createCheckoutSession({ customerId, userId, priceId, successUrl: input.successUrl, cancelUrl: input.cancelUrl, trialDays });
  }
}

/** A processor customer-portal link (manage or cancel the subscription, payment methods, invoices). */
export class CreatePortalSession {
  constructor(
    private readonly store: BillingStore,
    private readonly processor: SubscriptionProcessor,
  ) {}

  async execute(userId: string, returnUrl: string): Promise<{ url: string }> {
    requireUserId(userId);
    const account = await this.store.findAccount(userId);
    const customerId = assertPayable(account?.processorCustomerId ?? null);
    return this.processor.createPortalSession({ customerId, returnUrl });
  }
}

export class GetSubscription {
  constructor(private readonly store: BillingStore) {}

  execute(userId: string): Promise<Subscription | null> {
    return this.store.findNewestSubscription(requireUserId(userId));
  }
}
