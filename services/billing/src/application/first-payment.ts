import { releasedByFirstPayment } from "../domain/referral";
import type { BillingTransaction } from "./ports/billing-store.port";

/**
 * A payment of the user succeeded (a Stripe invoice paid with money, or an App Store purchase that is not a free
 * trial): it is kept as their first payment if none came before, and the CASH reward their referrer waits for
 * (AWAITING_FIRST_PAYMENT) becomes payable. Runs in the caller's transaction; repeating it changes nothing.
 */
export async function recordPayment(tx: BillingTransaction, userId: string, paidAt: Date): Promise<void> {
  await tx.recordFirstPayment(userId, paidAt);
  for (const reward of await tx.listRewardsOfRefereeForUpdate(userId)) {
    const released = releasedByFirstPayment(reward);
    if (released !== reward) await tx.updateReward(released);
  }
}
