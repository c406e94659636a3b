import type { Clock } from "@study/platform/clock";
import { expireReward, referralAfterExpiry } from "../domain/referral";
import type { BillingStore } from "./ports/billing-store.port";

/** Rewards expired in one transaction: a long backlog is worked through in batches, none holding locks for long. */
const BATCH = 200;

/**
 * PENDING rewards past their expiry (REWARD_VALIDITY_DAYS after the trial started) become EXPIRED in storage, and a
 * referral whose rewards all expired unprocessed becomes EXPIRED. Run by the scheduled job; idempotent (rows
 * another replica is expiring at the same time are skipped, not waited for). Answers how many rewards expired.
 */
export class ExpireRewards {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.store.transaction(async (tx) => {
        const now = this.clock.now();
        const due = await tx.findExpiredPendingRewardsForUpdate(now, BATCH);
        const referralIds = new Set<string>();
        for (const reward of due) {
          await tx.updateReward(expireReward(reward, now));
          referralIds.add(reward.referralId);
        }
        for (const referralId of referralIds) {
          const referral = await tx.findReferralForUpdate(referralId);
          if (!referral) continue;
          const after = referralAfterExpiry(referral, await tx.listRewardsOfReferral(referralId));
          if (after !== referral) await tx.updateReferral(after);
        }
        return due.length;
      });
      total += expired;
      if (expired < BATCH) return total;
    }
  }
}
