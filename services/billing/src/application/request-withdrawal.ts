import { newId } from "@study/grpc/ids";
import type { Logger } from "@study/platform";
import type { Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { applyMovement, withdrawalReserved } from "../domain/ledger";
import { assertWithdrawalAmount } from "../domain/money";
import { assertPayable, newWithdrawal, type Withdrawal } from "../domain/withdrawal";
import { withdrawalRequested, withdrawalStatusChanged } from "./billing-events";
import type { BillingStore } from "./ports/billing-store.port";
import { ProcessorError } from "./ports/payment-processor.port";
import type { SendPayout } from "./send-payout";

/**
 * The caller withdraws credit. The amount is reserved in one transaction that locks the account row (concurrent
 * withdrawals queue on it and each sees the balance the previous one left: none can overdraw), writes the
 * ledger entry and the withdrawal, and publishes withdrawal.requested. The payout is then sent at once; when the
 * processor cannot be reached the withdrawal stays PROCESSING and the consumer of withdrawal.requested sends it
 * later (same idempotency key: one payout).
 */
export class RequestWithdrawal {
  constructor(
    private readonly store: BillingStore,
    private readonly sendPayout: SendPayout,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, "warn">,
  ) {}

  async execute(userId: string, amountCents: number): Promise<{ withdrawal: Withdrawal; accountCreditCents: number }> {
    requireUserId(userId);
    assertWithdrawalAmount(amountCents);
    const reserved = await this.store.transaction(async (tx) => {
      const account = await tx.lockAccount(userId);
      if (!account) throw new AppError("precondition", "INSUFFICIENT_CREDIT", "Your account credit is lower than the amount requested");
      const movement = withdrawalReserved(amountCents);
      const after = applyMovement(account, movement);
      assertPayable(account.processorCustomerId);
      const withdrawal = newWithdrawal(newId(), userId, amountCents, this.clock.now());
      await tx.insertWithdrawal(withdrawal);
      await tx.recordMovement(userId, movement, after, { withdrawalId: withdrawal.id });
      await tx.enqueue([withdrawalRequested(withdrawal), withdrawalStatusChanged(withdrawal, after.creditCents)]);
      return { withdrawal, accountCreditCents: after.creditCents };
    });
    try {
      return await this.sendPayout.execute(reserved.withdrawal.id);
    } catch (error) {
      // A refusal failed the withdrawal and returned its credit: the caller hears it (STRIPE_ERROR).
      if (error instanceof ProcessorError && !error.transient) throw error;
      // Left PROCESSING: the withdrawal.requested consumer retries the payout (the reservation is committed).
      this.logger.warn({ err: error, withdrawalId: reserved.withdrawal.id }, "payout not sent yet; it is retried from the outbox");
      return reserved;
    }
  }
}
