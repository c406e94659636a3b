import fc from "fast-check";
import { AppError } from "@study/platform/errors";
import { resolveEntitlement, storeExtensionWindow, type EntitlementSources } from "../../src/domain/entitlement";
import { applyMovement, rewardCredited, sumMovements, withdrawalPaid, withdrawalReserved, withdrawalReturned } from "../../src/domain/ledger";
import { formatCents } from "@study/platform/money";
import { assertWithdrawalAmount } from "../../src/domain/money";
import { initials, shortName } from "../../src/domain/names";
import {
  CODE_ALPHABET,
  assertCanSignUp,
  assertProcessable,
  newReferral,
  normalizeCode,
  referralAfterReward,
  referralCodeFrom,
  startTrial,
  type ReferralCode,
} from "../../src/domain/referral";
import { storeStatusAfter } from "../../src/domain/store-status";
import { completeWithdrawal, failWithdrawal, newWithdrawal } from "../../src/domain/withdrawal";

const refusal = (action: () => unknown) => {
  try {
    action();
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, code: error.code };
    throw error;
  }
  throw new Error("expected a refusal");
};

const now = new Date("2026-11-24T12:00:00Z");
const days = (n: number) => new Date(now.getTime() + n * 86_400_000);

/** A verified referee, the referrer far from their limit. */
const allowed = { emailVerified: true, referrerSignups: 0, signupLimit: 20 };

const code = (overrides: Partial<ReferralCode> = {}): ReferralCode => ({
  id: "code-1",
  code: "ABCD2345",
  userId: "referrer",
  isActive: true,
  usageCount: 0,
  maxUsage: null,
  createdAt: now,
  updatedAt: now,
  ...overrides,
});

describe("money", () => {
  it("shows cents with two decimals", () => {
    expect([0, 5, 500, 1250, 123456, -50].map(formatCents)).toEqual(["0.00", "0.05", "5.00", "12.50", "1234.56", "-0.50"]);
  });

  it("refuses a withdrawal below 10.00 with MIN_AMOUNT, and amounts that are not money", () => {
    expect(refusal(() => assertWithdrawalAmount(999))).toEqual({ kind: "precondition", code: "MIN_AMOUNT" });
    expect(refusal(() => assertWithdrawalAmount(0))).toEqual({ kind: "validation", code: "VALIDATION_ERROR" });
    expect(refusal(() => assertWithdrawalAmount(1000.5))).toEqual({ kind: "validation", code: "VALIDATION_ERROR" });
    expect(() => assertWithdrawalAmount(1000)).not.toThrow();
  });
});

describe("ledger", () => {
  it("never lets the credit go below zero (INSUFFICIENT_CREDIT)", () => {
    const balances = applyMovement({ creditCents: 0, reservedCents: 0 }, rewardCredited(500));
    expect(refusal(() => applyMovement(balances, withdrawalReserved(1000)))).toEqual({ kind: "precondition", code: "INSUFFICIENT_CREDIT" });
  });

  it("keeps the balances equal to the sum of the movements, whatever the order of operations", () => {
    const operation = fc.oneof(
      fc.record({ type: fc.constant("reward" as const), cents: fc.integer({ min: 1, max: 5_000 }) }),
      fc.record({ type: fc.constant("withdraw" as const), cents: fc.integer({ min: 1_000, max: 6_000 }) }),
      fc.record({ type: fc.constant("settle" as const), paid: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), (operations) => {
        let balances = { creditCents: 0, reservedCents: 0 };
        const movements = [];
        const open: number[] = [];
        for (const op of operations) {
          let movement;
          if (op.type === "reward") movement = rewardCredited(op.cents);
          else if (op.type === "withdraw") movement = withdrawalReserved(op.cents);
          else {
            const amount = open.shift();
            if (amount === undefined) continue;
            movement = op.paid ? withdrawalPaid(amount) : withdrawalReturned(amount);
          }
          try {
            balances = applyMovement(balances, movement);
          } catch (error) {
            expect(error).toMatchObject({ code: "INSUFFICIENT_CREDIT" });
            continue;
          }
          movements.push(movement);
          if (op.type === "withdraw") open.push(op.cents);
        }
        expect(balances).toEqual(sumMovements(movements));
        expect(balances.creditCents).toBeGreaterThanOrEqual(0);
        expect(balances.reservedCents).toBe(open.reduce((sum, amount) => sum + amount, 0));
      }),
    );
  });

  it("returns a bounced payout that was already paid without touching the reservation", () => {
    expect(withdrawalReturned(1000, true)).toEqual({ kind: "WITHDRAWAL_RETURNED", creditDeltaCents: 1000, reservedDeltaCents: 0 });
  });
});

describe("names on the dashboard", () => {
  it("shortens names for privacy and makes initials", () => {
    expect(shortName("Ada Lovelace")).toBe("Ada L.");
    expect(shortName("  Grace  Brewster Hopper ")).toBe("Grace H.");
    expect(shortName("Plato")).toBe("Plato");
    expect(shortName("")).toBe("A student");
    expect(shortName("Émile Zola")).toBe("Émile Z.");
    expect(initials("Ada Lovelace")).toBe("AL");
    expect(initials("Grace Brewster Hopper")).toBe("GH");
    expect(initials("plato")).toBe("P");
    expect(initials(" ")).toBe("?");
  });
});

describe("referral rules", () => {
  it("draws codes from an alphabet without look-alikes and reads typed codes loosely", () => {
    const drawn = referralCodeFrom([0, 1, 2, 3, 4, 5, 30, 31]);
    expect(drawn).toHaveLength(8);
    expect([...drawn].every((letter) => CODE_ALPHABET.includes(letter))).toBe(true);
    expect(CODE_ALPHABET).not.toMatch(/[01OIL]/);
    expect(normalizeCode(" abcd-2345 ")).toBe("ABCD2345");
  });

  it("refuses unknown, inactive and exhausted codes (INVALID_CODE), the own code (SELF_REFERRAL) and a second referral (DUPLICATE_REFERRAL)", () => {
    expect(refusal(() => assertCanSignUp(null, "referee", null, allowed))).toEqual({ kind: "precondition", code: "INVALID_CODE" });
    expect(refusal(() => assertCanSignUp(code({ isActive: false }), "referee", null, allowed))).toMatchObject({ code: "INVALID_CODE" });
    expect(refusal(() => assertCanSignUp(code({ maxUsage: 2, usageCount: 2 }), "referee", null, allowed))).toMatchObject({ code: "INVALID_CODE" });
    expect(refusal(() => assertCanSignUp(code(), "referrer", null, allowed))).toMatchObject({ code: "SELF_REFERRAL" });
    const existing = newReferral("r0", code({ userId: "someone" }), "referee", now);
    expect(refusal(() => assertCanSignUp(code(), "referee", existing, allowed))).toMatchObject({ code: "DUPLICATE_REFERRAL" });
    expect(assertCanSignUp(code({ maxUsage: 2, usageCount: 1 }), "referee", null, allowed).id).toBe("code-1");
  });

  it("starts a trial once: CASH 5.00 for the referrer, FREE_MONTH for the referee, both PENDING", () => {
    const referral = newReferral("r1", code(), "referee", now);
    const { referral: started, rewards } = startTrial(referral, { cash: "w1", freeMonth: "w2" }, now, 90);
    expect(started).toMatchObject({ status: "TRIAL_STARTED", trialStartDate: now });
    expect(rewards).toEqual([
      expect.objectContaining({ id: "w1", rewardType: "CASH", cashAmountCents: 500, userId: "referrer", status: "PENDING", expiresAt: days(90) }),
      expect.objectContaining({ id: "w2", rewardType: "FREE_MONTH", freeMonths: 1, userId: "referee", status: "PENDING" }),
    ]);
    expect(refusal(() => startTrial(started, { cash: "x", freeMonth: "y" }, now, 90))).toMatchObject({ code: "NO_REFERRAL" });
    expect(refusal(() => startTrial(null, { cash: "x", freeMonth: "y" }, now, 90))).toMatchObject({ code: "NO_REFERRAL" });
  });

  it("processes only the caller's own pending rewards of the named type", () => {
    // The referee has paid already: the cash reward is payable at once.
    const { rewards } = startTrial(newReferral("r1", code(), "referee", now), { cash: "w1", freeMonth: "w2" }, now, 90, true);
    const [cash] = rewards;
    expect(refusal(() => assertProcessable(cash, "referee", "CASH", now))).toEqual({ kind: "precondition", code: "NOT_FOUND" });
    expect(refusal(() => assertProcessable(null, "referrer", "CASH", now))).toMatchObject({ code: "NOT_FOUND" });
    expect(refusal(() => assertProcessable(cash, "referrer", "FREE_MONTH", now))).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(refusal(() => assertProcessable({ ...cash, status: "COMPLETED" }, "referrer", "CASH", now))).toMatchObject({ code: "NOT_PENDING" });
    expect(refusal(() => assertProcessable(cash, "referrer", "CASH", days(91)))).toMatchObject({ code: "NOT_PENDING" });
    expect(assertProcessable(cash, "referrer", "CASH", now)).toBe(cash);
  });

  it("completes the referral when both of its rewards are processed", () => {
    const { referral, rewards } = startTrial(newReferral("r1", code(), "referee", now), { cash: "w1", freeMonth: "w2" }, now, 90);
    const afterCash = referralAfterReward(referral, rewards, { ...rewards[0], status: "COMPLETED" }, now);
    expect(afterCash).toMatchObject({ status: "TRIAL_STARTED", rewardClaimedDate: now });
    const both = [{ ...rewards[0], status: "COMPLETED" as const }, rewards[1]];
    expect(referralAfterReward(afterCash, both, { ...rewards[1], status: "COMPLETED" }, days(1))).toMatchObject({
      status: "COMPLETED",
      rewardClaimedDate: now,
    });
  });
});

describe("withdrawals", () => {
  it("settle once: a completed withdrawal does not complete again, a failed one does not fail again", () => {
    const withdrawal = newWithdrawal("w", "u", 1000, now);
    const completed = completeWithdrawal(withdrawal, days(1));
    expect(completed).toMatchObject({ status: "COMPLETED", completedAt: days(1) });
    expect(completed && completeWithdrawal(completed, days(2))).toBeNull();
    const failed = failWithdrawal(withdrawal, "account closed", days(1));
    expect(failed).toMatchObject({ status: "FAILED", failureReason: "account closed" });
    expect(failed && failWithdrawal(failed, "again", days(2))).toBeNull();
  });
});

describe("entitlement", () => {
  const none: EntitlementSources = { subscriptions: [], storeSubscriptions: [], extensions: [] };

  it("is none without a source", () => {
    expect(resolveEntitlement(none, now)).toEqual({
      entitlement: { isPro: false, source: "none", plan: null, expiresAt: null, inGrace: false },
      recheckAt: null,
    });
  });

  it("comes from a paid processor subscription, in grace while past due", () => {
    const active = { plan: "pro_monthly", status: "active", periodEnd: days(20), trialEnd: null };
    expect(resolveEntitlement({ ...none, subscriptions: [active] }, now)).toEqual({
      entitlement: { isPro: true, source: "stripe", plan: "pro_monthly", expiresAt: days(20), inGrace: false },
      recheckAt: days(20),
    });
    expect(resolveEntitlement({ ...none, subscriptions: [{ ...active, status: "past_due" }] }, now).entitlement.inGrace).toBe(true);
    expect(resolveEntitlement({ ...none, subscriptions: [{ ...active, status: "canceled" }] }, now).entitlement.isPro).toBe(false);
    expect(resolveEntitlement({ ...none, subscriptions: [{ ...active, periodEnd: days(-1) }] }, now).entitlement.isPro).toBe(false);
  });

  it("comes from the store, in grace during the store's grace period, and hands over to a referral extension", () => {
    const store = { productId: "pro.monthly", status: "active" as const, expiresAt: days(5), gracePeriodExpiresAt: null };
    const extension = storeExtensionWindow(store, [], 30, now);
    expect(extension).toEqual({ startsAt: days(5), endsAt: days(35) });
    const sources = { ...none, storeSubscriptions: [store], extensions: [extension] };
    expect(resolveEntitlement(sources, now)).toEqual({
      entitlement: { isPro: true, source: "store", plan: "pro.monthly", expiresAt: days(5), inGrace: false },
      recheckAt: days(5),
    });
    expect(resolveEntitlement(sources, days(6)).entitlement).toEqual({
      isPro: true,
      source: "referral",
      plan: null,
      expiresAt: days(35),
      inGrace: false,
    });
    expect(resolveEntitlement(sources, days(36)).entitlement.isPro).toBe(false);
    // A second free month follows the first.
    expect(storeExtensionWindow(store, [extension], 30, now)).toEqual({ startsAt: days(35), endsAt: days(65) });
    const grace = { ...store, status: "in_grace" as const, expiresAt: days(-1), gracePeriodExpiresAt: days(3) };
    expect(resolveEntitlement({ ...none, storeSubscriptions: [grace] }, now).entitlement).toMatchObject({
      isPro: true,
      source: "store",
      inGrace: true,
      expiresAt: days(3),
    });
  });
});

describe("App Store notification → store subscription status", () => {
  const current = { expiresAt: days(10), revoked: false };
  const lapsed = { expiresAt: days(-1), revoked: false };

  it.each([
    ["SUBSCRIBED", "INITIAL_BUY", current, "active"],
    ["DID_RENEW", undefined, current, "active"],
    ["DID_RENEW", "BILLING_RECOVERY", current, "active"],
    ["DID_FAIL_TO_RENEW", "GRACE_PERIOD", lapsed, "in_grace"],
    ["DID_FAIL_TO_RENEW", undefined, lapsed, "expired"],
    ["GRACE_PERIOD_EXPIRED", undefined, lapsed, "expired"],
    ["EXPIRED", "VOLUNTARY", lapsed, "expired"],
    ["REFUND", undefined, current, "expired"],
    ["REVOKE", undefined, current, "expired"],
    ["REFUND_REVERSED", undefined, current, "active"],
    ["DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", current, "active"],
    ["DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", lapsed, "expired"],
    ["SUBSCRIBED", "RESUBSCRIBE", { expiresAt: days(10), revoked: true }, "expired"],
  ] as const)("%s/%s → %s", (type, subtype, transaction, status) => {
    expect(storeStatusAfter(type, subtype, transaction, now)).toBe(status);
  });
});
