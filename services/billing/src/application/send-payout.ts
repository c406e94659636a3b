import type { Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { applyMovement, withdrawalPaid, withdrawalReturned } from "../domain/ledger";
import { completeWithdrawal, failWithdrawal, type Withdrawal } from "../domain/withdrawal";
import { withdrawalStatusChanged } from "./billing-events";
import type { BillingStore } from "./ports/billing-store.port";
import { ProcessorError, type PaymentProcessor } from "./ports/payment-processor.port";

/**
 * Sends a reserved withdrawal's payout to the processor, once: the idempotency key is the withdrawal's id, so a
 * second send (the request and the outbox consumer both trying) gets the same payout back. A payout the processor
 * refuses fails the withdrawal and returns its credit; an outage is thrown for a later retry.
 */
export class SendPayout {
  constructor(
    private readonly store: BillingStore,
    private readonly processor: PaymentProcessor,
    private readonly clock: Clock,
  ) {}

  async execute(withdrawalId: string): Promise<{ withdrawal: Withdrawal; accountCreditCents: number }> {
    const withdrawal = await this.store.findWithdrawal(withdrawalId);
    if (!withdrawal) throw AppError.notFound("Withdrawal");
    const account = await this.store.findAccount(withdrawal.userId);
    if (withdrawal.status !== "PROCESSING" || withdrawal.processorPaymentId || !account?.processorCustomerId) {
      return { withdrawal, accountCreditCents: account?.creditCents ?? 0 };
    }
    try {
      const { payoutId } = await this.processor.createPayout(
        { withdrawalId, userId: withdrawal.userId, customerId: account.processorCustomerId, amountCents: withdrawal.amountCents },
        `payout-${withdrawalId}`,
      );
      await this.store.attachPayment(withdrawalId, payoutId);
      return { withdrawal: { ...withdrawal, processorPaymentId: payoutId }, accountCreditCents: account.creditCents };
    } catch (error) {
      if (!(error instanceof ProcessorError) || error.transient) throw error;
      await new ReturnWithdrawal(this.store, this.clock).execute(withdrawalId, `The payout was refused: ${error.message}`);
      throw error;
    }
  }
}

/** A withdrawal fails and its credit comes back (a refused or failed payout), once. */
export class ReturnWithdrawal {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
  ) {}

  async execute(withdrawalId: string, reason: string): Promise<Withdrawal | null> {
    return this.store.transaction(async (tx) => {
      const withdrawal = await tx.findWithdrawalForUpdate(withdrawalId);
      if (!withdrawal) return null;
      const failed = failWithdrawal(withdrawal, reason, this.clock.now());
      if (!failed) return null;
      const account = await tx.lockAccount(withdrawal.userId);
      if (!account) throw AppError.internal(`No billing account for ${withdrawal.userId}`);
      const movement = withdrawalReturned(withdrawal.amountCents, withdrawal.status === "COMPLETED");
      const after = applyMovement(account, movement);
      await tx.recordMovement(withdrawal.userId, movement, after, { withdrawalId });
      await tx.updateWithdrawal(failed);
      await tx.enqueue([withdrawalStatusChanged(failed, after.creditCents)]);
      return failed;
    });
  }
}

/** The processor paid the withdrawal out: COMPLETED, its reservation settled, once. */
export class CompleteWithdrawal {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
  ) {}

  async execute(withdrawalId: string): Promise<Withdrawal | null> {
    return this.store.transaction(async (tx) => {
      const withdrawal = await tx.findWithdrawalForUpdate(withdrawalId);
      if (!withdrawal) return null;
      const completed = completeWithdrawal(withdrawal, this.clock.now());
      if (!completed) return null;
      const account = await tx.lockAccount(withdrawal.userId);
      if (!account) throw AppError.internal(`No billing account for ${withdrawal.userId}`);
      const movement = withdrawalPaid(withdrawal.amountCents);
      const after = applyMovement(account, movement);
      await tx.recordMovement(withdrawal.userId, movement, after, { withdrawalId });
      await tx.updateWithdrawal(completed);
      await tx.enqueue([withdrawalStatusChanged(completed, after.creditCents)]);
      return completed;
    });
  }
}
