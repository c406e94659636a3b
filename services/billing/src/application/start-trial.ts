import { newId } from "@study/grpc/ids";
import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { shortName } from "../domain/names";
import { startTrial, type Referral, type Reward } from "../domain/referral";
import { referralTrialStarted } from "./billing-events";
import type { BillingStore } from "./ports/billing-store.port";

/** The caller (a referee) starts a trial: the referral's two rewards are made PENDING and both users are told. */
export class StartTrial {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
    private readonly rewardValidityDays: number,
  ) {}

  async execute(userId: string): Promise<{ referral: Referral; rewards: Reward[] }> {
    requireUserId(userId);
    return this.store.transaction(async (tx) => {
      const pending = await tx.findReferralOfRefereeForUpdate(userId);
      const { referral, rewards } = startTrial(pending, { cash: newId(), freeMonth: newId() }, this.clock.now(), this.rewardValidityDays);
      await tx.updateReferral(referral);
      await tx.insertRewards(rewards);
      const [referee, referrer] = [await tx.findAccount(referral.refereeId), await tx.findAccount(referral.referrerId)];
      await tx.enqueue([
        referralTrialStarted(referral, { referee: shortName(referee?.name ?? ""), referrer: shortName(referrer?.name ?? "") }, ...rewards),
      ]);
      return { referral, rewards };
    });
  }
}
