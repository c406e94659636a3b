import type Stripe from "stripe";
import { ProcessorError } from "../../application/ports/payment-processor.port";
import type { SubscriptionProcessor } from "../../application/ports/processor-events.port";
import { toProcessorError } from "./stripe-payment-processor";

/** Checkout (mode subscription) and the customer portal on Stripe. */
export class StripeSubscriptionProcessor implements SubscriptionProcessor {
  constructor(private readonly stripe: Stripe) {}

  async createCheckoutSession(input: {
    customerId: string;
    userId: string;
    priceId: string;
    successUrl: string;
    cancelUrl: string;
    trialDays?: number;
  }): Promise<{ sessionId: string; url: string }> {
    try {
      const session = await this.stripe.checkout.sessions.create({
        mode: "subscription",
        customer: input.customerId,
        client_reference_id: input.userId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        // The subscription carries its user, so that its webhooks name them even before the customer is known here.
        subscription_data: { metadata: { userId: input.userId }, ...(input.trialDays ? { trial_period_days: input.trialDays } : {}) },
        metadata: { userId: input.userId },
      });
      if (!session.url) throw new ProcessorError("The payment processor gave no checkout page", false);
      return { sessionId: session.id, url: session.url };
    } catch (error) {
      throw error instanceof ProcessorError ? error : toProcessorError(error);
    }
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }> {
    try {
      const session = await this.stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl });
      return { url: session.url };
    } catch (error) {
      throw toProcessorError(error);
    }
  }
}
