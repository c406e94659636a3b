import { AppError } from "@study/platform/errors";
import { billingConfigSchema, referralLimits } from "../../src/config";
import {
  assertCanSignUp,
  assertProcessable,
  expireReward,
  newReferral,
  referralAfterExpiry,
  releasedByFirstPayment,
  startTrial,
  type ReferralCode,
} from "../../src/domain/referral";
import { assertDifferentPayer, assertRealTrial, hasTrialOrPaidSubscription, limitPeriodStart } from "../../src/domain/referral-eligibility";

/** Issue #29: the rules that stop referral farming (throw-away sign-ups calling trial-start without paying). */

const refusal = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, code: error.code, action: error.action };
    throw error;
  }
  throw new Error("expected a refusal");
};

const now = new Date("2026-11-29T12:00:00Z");
const days = (n: number) => new Date(now.getTime() + n * 86_400_000);
const code: ReferralCode = {
  id: "code-1",
  code: "ABCD2345",
  userId: "referrer",
  isActive: true,
  usageCount: 0,
  maxUsage: null,
  createdAt: now,
  updatedAt: now,
};
const none = { subscriptions: [], storeSubscriptions: [] };

describe("a referral needs the referee's verified e-mail", () => {
  it("refuses a sign-up with an unverified e-mail (EMAIL_NOT_VERIFIED, action VERIFY_EMAIL) and accepts a verified one", () => {
    expect(refusal(() => assertCanSignUp(code, "referee", null, { emailVerified: false, referrerSignups: 0, signupLimit: 20 }))).toEqual({
      kind: "precondition",
      code: "EMAIL_NOT_VERIFIED",
      action: "VERIFY_EMAIL",
    });
    expect(assertCanSignUp(code, "referee", null, { emailVerified: true, referrerSignups: 0, signupLimit: 20 })).toBe(code);
  });
});

describe("limits per referrer and period", () => {
  it("refuses the sign-up that would pass the referrer's sign-ups of the period (REFERRAL_LIMIT_REACHED)", () => {
    expect(refusal(() => assertCanSignUp(code, "referee", null, { emailVerified: true, referrerSignups: 3, signupLimit: 3 }))).toEqual({
      kind: "precondition",
      code: "REFERRAL_LIMIT_REACHED",
      action: "RETRY_LATER",
    });
    expect(assertCanSignUp(code, "referee", null, { emailVerified: true, referrerSignups: 2, signupLimit: 3 })).toBe(code);
  });

  it("counts over a rolling period ending now", () => {
    expect(limitPeriodStart({ periodDays: 30 }, now)).toEqual(days(-30));
  });

  it("has defaults, and refuses settings that are no limit at start-up", () => {
    const base = { STRIPE_SECRET_KEY: "sk_test_x", STRIPE_WEBHOOK_SECRET: "whsec_x", DATABASE_URL: "postgresql://h/db", RABBITMQ_URL: "amqp://h" };
    const config = billingConfigSchema.parse(base);
    expect(referralLimits(config)).toEqual({ periodDays: 30, signupsPerPeriod: 20, rewardsPerPeriod: 10 });
    expect(config.REWARD_EXPIRY_CRON).toBe("7 * * * *");
    for (const wrong of [
      { REFERRAL_SIGNUP_LIMIT: "0" },
      { REFERRAL_REWARD_LIMIT: "many" },
      { REFERRAL_LIMIT_PERIOD_DAYS: "-1" },
      { REWARD_EXPIRY_CRON: "every hour" },
    ]) {
      expect(billingConfigSchema.safeParse({ ...base, ...wrong }).success).toBe(false);
    }
  });
});

describe("a trial start must be a real one", () => {
  const stripe = (status: string, periodEnd: Date | null = days(14)) => ({ plan: "pro_monthly", status, periodEnd, trialEnd: null });
  const store = (status: "active" | "in_grace" | "expired", expiresAt: Date | null = days(7)) => ({
    productId: "pro",
    status,
    expiresAt,
    gracePeriodExpiresAt: null,
  });

  it("counts a Stripe subscription trialing or active, or an App Store subscription active, as a real trial", () => {
    expect(hasTrialOrPaidSubscription({ ...none, subscriptions: [stripe("trialing")] }, now)).toBe(true);
    expect(hasTrialOrPaidSubscription({ ...none, subscriptions: [stripe("active")] }, now)).toBe(true);
    expect(hasTrialOrPaidSubscription({ ...none, storeSubscriptions: [store("active")] }, now)).toBe(true);
  });

  it("does not count no subscription, a canceled, unpaid or ended one, or an expired store subscription", () => {
    expect(hasTrialOrPaidSubscription(none, now)).toBe(false);
    for (const status of ["canceled", "incomplete", "incomplete_expired", "unpaid", "past_due"]) {
      expect(hasTrialOrPaidSubscription({ ...none, subscriptions: [stripe(status)] }, now)).toBe(false);
    }
    expect(hasTrialOrPaidSubscription({ ...none, subscriptions: [stripe("active", days(-1))] }, now)).toBe(false);
    expect(hasTrialOrPaidSubscription({ ...none, storeSubscriptions: [store("expired")] }, now)).toBe(false);
    expect(hasTrialOrPaidSubscription({ ...none, storeSubscriptions: [store("active", days(-1))] }, now)).toBe(false);
  });

  it("refuses a trial start without one with NO_SUBSCRIPTION (action SUBSCRIBE)", () => {
    expect(refusal(() => assertRealTrial(false))).toEqual({ kind: "precondition", code: "NO_SUBSCRIPTION", action: "SUBSCRIBE" });
    expect(() => assertRealTrial(true)).not.toThrow();
  });

  it("refuses a referee paying with the referrer's Stripe customer or card fingerprint (SELF_REFERRAL)", () => {
    const referrer = { customerIds: ["cus_A"], cardFingerprints: ["Xt5EWLLDS7FJjR1c"] };
    expect(refusal(() => assertDifferentPayer({ customerIds: ["cus_B"], cardFingerprints: ["Xt5EWLLDS7FJjR1c"] }, referrer))).toMatchObject({
      code: "SELF_REFERRAL",
    });
    expect(refusal(() => assertDifferentPayer({ customerIds: ["cus_A"], cardFingerprints: [] }, referrer))).toMatchObject({ code: "SELF_REFERRAL" });
    expect(() => assertDifferentPayer({ customerIds: ["cus_B"], cardFingerprints: ["Other000Card0001"] }, referrer)).not.toThrow();
    expect(() =>
      assertDifferentPayer({ customerIds: ["cus_B"], cardFingerprints: ["Other000Card0001"] }, { customerIds: [], cardFingerprints: [] }),
    ).not.toThrow();
  });
});

describe("a cash reward becomes payable with the referee's first payment", () => {
  const referral = newReferral("r1", code, "referee", now);

  it("makes the CASH reward PENDING with AWAITING_FIRST_PAYMENT while the referee has not paid, and refuses to process it", () => {
    const { rewards } = startTrial(referral, { cash: "w1", freeMonth: "w2" }, now, 90);
    const [cash, freeMonth] = rewards;
    expect(cash).toMatchObject({ status: "PENDING", pendingReason: "AWAITING_FIRST_PAYMENT" });
    expect(freeMonth).toMatchObject({ status: "PENDING", pendingReason: null });
    expect(refusal(() => assertProcessable(cash, "referrer", "CASH", now))).toMatchObject({ kind: "precondition", code: "AWAITING_FIRST_PAYMENT" });
  });

  it("releases it when the first payment succeeds, and makes it payable at once when the referee had paid before", () => {
    const [cash] = startTrial(referral, { cash: "w1", freeMonth: "w2" }, now, 90).rewards;
    const released = releasedByFirstPayment(cash);
    expect(released).toMatchObject({ status: "PENDING", pendingReason: null });
    expect(assertProcessable(released, "referrer", "CASH", now)).toBe(released);
    expect(releasedByFirstPayment(released)).toBe(released);
    expect(releasedByFirstPayment({ ...cash, status: "EXPIRED" })).toMatchObject({ status: "EXPIRED" });
    const [paidAlready] = startTrial(referral, { cash: "w1", freeMonth: "w2" }, now, 90, true).rewards;
    expect(paidAlready.pendingReason).toBeNull();
  });
});

describe("rewards past their validity", () => {
  const { referral, rewards } = startTrial(newReferral("r1", code, "referee", now), { cash: "w1", freeMonth: "w2" }, now, 90);

  it("become EXPIRED after REWARD_VALIDITY_DAYS, not before; a processed reward stays as it is", () => {
    expect(expireReward(rewards[0], days(89))).toBe(rewards[0]);
    expect(expireReward(rewards[0], days(90))).toMatchObject({ status: "EXPIRED", pendingReason: null });
    const completed = { ...rewards[1], status: "COMPLETED" as const };
    expect(expireReward(completed, days(200))).toBe(completed);
  });

  it("make their referral EXPIRED once every reward expired unprocessed", () => {
    const expired = rewards.map((reward) => expireReward(reward, days(91)));
    expect(referralAfterExpiry(referral, expired)).toMatchObject({ status: "EXPIRED" });
    expect(referralAfterExpiry(referral, [expired[0], { ...rewards[1], status: "COMPLETED" }])).toBe(referral);
    expect(referralAfterExpiry(referral, [expired[0], rewards[1]])).toBe(referral);
  });
});
