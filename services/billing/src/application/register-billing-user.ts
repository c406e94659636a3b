import { randomInt } from "node:crypto";
import type { Logger } from "@study/platform";
import { CODE_ALPHABET, CODE_LENGTH, referralCodeFrom } from "../domain/referral";
import type { BillingAccount, BillingStore } from "./ports/billing-store.port";
import type { PaymentProcessor } from "./ports/payment-processor.port";

/** A fresh referral code, drawn uniformly from the alphabet with the system's cryptographic generator. */
export const drawReferralCode = () => referralCodeFrom(Array.from({ length: CODE_LENGTH }, () => randomInt(CODE_ALPHABET.length)));

/**
 * A user registered (identity.user.registered.v1): their billing account with one active referral code, and their
 * processor customer. Safe to run again for the same user (a redelivered event): the account and code are made
 * once, and the customer is asked for with an idempotency key derived from the user, so the processor makes one.
 */
export class RegisterBillingUser {
  constructor(
    private readonly store: BillingStore,
    private readonly processor: PaymentProcessor,
    private readonly logger: Pick<Logger, "info">,
    private readonly newCode: () => string = drawReferralCode,
  ) {}

  async execute(user: { userId: string; name: string; email: string }): Promise<BillingAccount> {
    const account = await this.store.ensureAccount(user, this.newCode);
    if (account.processorCustomerId) return account;
    const { customerId } = await this.processor.createCustomer(user, `customer-${user.userId}`);
    await this.store.setProcessorCustomer(user.userId, customerId);
    this.logger.info({ userId: user.userId, processorCustomerId: customerId }, "processor customer created");
    return { ...account, processorCustomerId: customerId };
  }
}
