import { AppError } from "@study/platform/errors";
import type { ProcessorSubscriptionState, StoreSubscriptionState } from "./entitlement";

/**
 * The rules that keep the referral program from paying for fake referrals (issue #29: throw-away sign-ups calling
 * trial-start without any subscription). Pure: the use cases read billing's own records and pass them in.
 */

/** Processor (Stripe) statuses of a trial or a paid subscription. past_due (a failed payment) is neither. */
const TRIAL_OR_PAID = new Set(["trialing", "active"]);

/**
 * The referee holds a real trial or a paid subscription, as billing's own records show it (written from Stripe's
 * signed webhooks and verified App Store transactions, never from what the client says): a Stripe subscription
 * trialing or active whose period has not ended, or an App Store subscription active until a time still to come.
 */
export function hasTrialOrPaidSubscription(
  sources: { subscriptions: readonly ProcessorSubscriptionState[]; storeSubscriptions: readonly StoreSubscriptionState[] },
  now: Date,
): boolean {
  const processor = sources.subscriptions.some(
    (subscription) => TRIAL_OR_PAID.has(subscription.status) && (!subscription.periodEnd || subscription.periodEnd > now),
  );
  const store = sources.storeSubscriptions.some(
    (subscription) => subscription.status === "active" && (!subscription.expiresAt || subscription.expiresAt > now),
  );
  return processor || store;
}

/** A trial start needs a real trial (NO_SUBSCRIPTION otherwise, the spec's code for "no active subscription"). */
export function assertRealTrial(hasSubscription: boolean): void {
  if (!hasSubscription) {
    throw new AppError(
      "precondition",
      "NO_SUBSCRIPTION",
      "Start a trial or subscribe (through checkout or the App Store) first: a referral trial needs a real subscription",
      { action: "SUBSCRIBE" },
    );
  }
}

/** Who pays, as the processor knows it: the user's Stripe customers and the fingerprints of their cards. */
export interface PayerIdentity {
  customerIds: readonly string[];
  cardFingerprints: readonly string[];
}

/**
 * The referee may not pay as the referrer does: the same Stripe customer or a card with the same fingerprint (Stripe
 * gives one card the same fingerprint across customers) is one person referring themself (SELF_REFERRAL).
 */
export function assertDifferentPayer(referee: PayerIdentity, referrer: PayerIdentity): void {
  const shares = (mine: readonly string[], theirs: readonly string[]) => mine.some((value) => value !== "" && theirs.includes(value));
  if (shares(referee.customerIds, referrer.customerIds) || shares(referee.cardFingerprints, referrer.cardFingerprints)) {
    throw new AppError("precondition", "SELF_REFERRAL", "You pay with the same card or payment account as the friend who referred you");
  }
}

/** How many referral sign-ups and rewards one referrer may gather in a period. */
export interface ReferralLimits {
  periodDays: number;
  signupsPerPeriod: number;
  rewardsPerPeriod: number;
}

/** The start of the limit period ending now (a rolling window). */
export const limitPeriodStart = (limits: Pick<ReferralLimits, "periodDays">, now: Date): Date =>
  new Date(now.getTime() - limits.periodDays * 86_400_000);
