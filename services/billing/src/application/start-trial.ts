import { newId } from "@study/grpc/ids";
import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { shortName } from "../domain/names";
import { assertEmailVerified, assertPendingReferral, assertWithinLimit, startTrial, type Referral, type Reward } from "../domain/referral";
import {
  assertDifferentPayer,
  assertRealTrial,
  hasTrialOrPaidSubscription,
  limitPeriodStart,
  type ReferralLimits,
} from "../domain/referral-eligibility";
import { referralTrialStarted } from "./billing-events";
import type { BillingAccount, BillingStore } from "./ports/billing-store.port";

/**
 * The caller (a referee) starts a trial: the referral's two rewards are made PENDING and both users are told. The
 * trial must be real — billing's own records (Stripe webhooks, verified App Store transactions) show a trialing
 * or paid subscription of the caller — the caller's e-mail verified, the caller paying with neither the
 * referrer's Stripe customer nor their card, and the referrer within their rewards of the limit period. The
 * referrer's CASH reward waits for the caller's first payment unless it already happened.
 */
export class StartTrial {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
    private readonly rewardValidityDays: number,
    private readonly limits: ReferralLimits,
  ) {}

  async execute(userId: string, emailVerified: boolean): Promise<{ referral: Referral; rewards: Reward[] }> {
    requireUserId(userId);
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const pending = assertPendingReferral(await tx.findReferralOfRefereeForUpdate(userId));
      assertEmailVerified(emailVerified);
      assertRealTrial(hasTrialOrPaidSubscription(await tx.loadEntitlementSources(userId), now));
      assertDifferentPayer(await tx.payerIdentity(userId), await tx.payerIdentity(pending.referrerId));
      // Both accounts are locked, always in the same order: the referrer's, so that two referees of one referrer
      // count one after the other; the referee's, so that a first payment recorded meanwhile (recordPayment updates
      // that row, then releases the referee's rewards) is either seen here or sees the rewards made here.
      const locked = new Map<string, BillingAccount | null>();
      for (const id of [pending.referrerId, userId].sort()) locked.set(id, await tx.lockAccount(id));
      const referrer = locked.get(pending.referrerId) ?? null;
      assertWithinLimit(
        await tx.countCashRewardsSince(pending.referrerId, limitPeriodStart(this.limits, now)),
        this.limits.rewardsPerPeriod,
        "Your friend has reached the referral rewards allowed for now: try again later",
      );
      const referee = locked.get(userId) ?? null;
      const { referral, rewards } = startTrial(
        pending,
        { cash: newId(), freeMonth: newId() },
        now,
        this.rewardValidityDays,
        !!referee?.firstPaymentAt,
      );
      await tx.updateReferral(referral);
      await tx.insertRewards(rewards);
      await tx.enqueue([
        referralTrialStarted(referral, { referee: shortName(referee?.name ?? ""), referrer: shortName(referrer?.name ?? "") }, ...rewards),
      ]);
      return { referral, rewards };
    });
  }
}
