import { prismaOptions } from "@study/db";
import { fixedClock } from "@study/platform/clock";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import { PrismaBillingQueries } from "../../src/adapters/db/prisma-billing-queries";
import { PrismaBillingStore } from "../../src/adapters/db/prisma-billing-store";
import { ExpireRewards } from "../../src/application/expire-rewards";
import { recordPayment } from "../../src/application/first-payment";
import { GetAccountCredits } from "../../src/application/get-account-credits";
import { GetReferralDashboard } from "../../src/application/get-referral-dashboard";
import type { PaymentProcessor } from "../../src/application/ports/payment-processor.port";
import { ProcessReward } from "../../src/application/process-reward";
import { RegisterBillingUser } from "../../src/application/register-billing-user";
import { SignUpWithCode } from "../../src/application/sign-up-with-code";
import { StartTrial } from "../../src/application/start-trial";
import { ConfirmStorePurchase } from "../../src/application/store-purchases";
import type { StoreVerifier, VerifiedStoreTransaction } from "../../src/application/ports/store-verifier.port";
import { appAccountTokenOf } from "../../src/application/store-purchases";
import { PrismaClient } from "../../src/generated/prisma/client";
import { billingService } from "../../src/service";

/** A processor that makes customers and nothing else (these rules never pay out or extend). */
const processor: PaymentProcessor = {
  createCustomer: async (input: { userId: string }) => ({ customerId: `cus_${input.userId}` }),
  createPayout: async () => {
    throw new Error("no payout expected");
  },
  extendSubscription: async () => {
    throw new Error("no extension expected");
  },
};
const silent = { info: () => undefined, warn: () => undefined };

/**
 * Issue #29 on PostgreSQL: the referral farming attempt (throw-away sign-ups, trial-start without a subscription)
 * earns nothing, the honest referral pays once the referee paid, limits and the same-payer rule hold, and rewards
 * past their validity are EXPIRED in storage.
 */
describe("referral abuse rules on PostgreSQL", () => {
  let db: PrismaClient;
  let store: PrismaBillingStore;
  const clock = fixedClock("2026-11-29T12:00:00Z");
  const limits = { periodDays: 30, signupsPerPeriod: 20, rewardsPerPeriod: 10 };
  let users = 0;

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("billing_abuse", migrationSources(billingService)), 10));
    store = new PrismaBillingStore(db);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  async function newUser(name: string) {
    users += 1;
    const userId = `user-${users}-${Date.now()}`;
    await new RegisterBillingUser(store, processor, silent).execute({ userId, name, email: `${userId}@example.com` });
    return userId;
  }
  const codeOf = async (userId: string) => (await store.findActiveCode(userId))?.code ?? "";

  /** A Stripe subscription of the user as its webhooks write it, paid with the card of `fingerprint`. */
  async function subscribe(userId: string, status: string, fingerprint: string | null = `card-of-${userId}`) {
    await store.transaction((tx) =>
      tx.upsertSubscription(
        userId,
        "pro_monthly",
        {
          processorSubscriptionId: `sub_${userId}`,
          processorCustomerId: `cus_${userId}`,
          userId,
          status,
          priceId: "price_pro_monthly",
          periodStart: clock.now(),
          periodEnd: new Date(clock.now().getTime() + 7 * 86_400_000),
          cancelAtPeriodEnd: false,
          seats: 1,
          trialStart: null,
          trialEnd: null,
          cardFingerprint: fingerprint,
        },
        clock.now(),
      ),
    );
  }

  const dashboard = (userId: string) =>
    new GetReferralDashboard(store, new PrismaBillingQueries(db), clock, { goal: 10, leaderboardSize: 10, recentReferrals: 5 }).execute(userId);

  it("pays nothing for throw-away sign-ups: unverified e-mails are refused, a trial start without a subscription too", async () => {
    const farmer = await newUser("Mallory Farmer");
    const code = await codeOf(farmer);
    const signUp = new SignUpWithCode(store, clock, limits);
    const startTrial = new StartTrial(store, clock, 90, limits);
    for (const name of ["Throw Away", "Throw Away", "Throw Away"]) {
      const fake = await newUser(name);
      await expect(signUp.execute(fake, code, false)).rejects.toMatchObject({ code: "EMAIL_NOT_VERIFIED", action: "VERIFY_EMAIL" });
      // Even with a verified address, a trial start is refused without a trial or paid subscription.
      await signUp.execute(fake, code, true);
      await expect(startTrial.execute(fake, true)).rejects.toMatchObject({ kind: "precondition", code: "NO_SUBSCRIPTION" });
      // A subscription that was never paid for (incomplete checkout) is no trial either.
      await subscribe(fake, "incomplete");
      await expect(startTrial.execute(fake, true)).rejects.toMatchObject({ code: "NO_SUBSCRIPTION" });
    }
    expect(await db.referralReward.count({ where: { userId: farmer } })).toBe(0);
    expect(await dashboard(farmer)).toMatchObject({ pendingAmountCents: 0, accountCreditCents: 0, totalReferrals: 3, activeTrials: 0, pending: 3 });
  });

  it("keeps the referrer's cash PENDING (AWAITING_FIRST_PAYMENT) through a trial and makes it payable with the first payment", async () => {
    const referrer = await newUser("Grace Hopper");
    const referee = await newUser("Ada Lovelace");
    await new SignUpWithCode(store, clock, limits).execute(referee, await codeOf(referrer), true);
    await subscribe(referee, "trialing");
    const { rewards } = await new StartTrial(store, clock, 90, limits).execute(referee, true);
    const cash = rewards.find((reward) => reward.rewardType === "CASH");

    expect((await dashboard(referrer)).recentReferrals).toEqual([
      expect.objectContaining({ name: "Ada L.", status: "TRIAL_STARTED", amountCents: 500, pending: true, pendingReason: "AWAITING_FIRST_PAYMENT" }),
    ]);
    const credits = new GetAccountCredits(store, new PrismaBillingQueries(db), clock);
    expect((await credits.execute(referrer)).pendingRewards).toEqual([
      expect.objectContaining({ id: cash?.id, pendingReason: "AWAITING_FIRST_PAYMENT" }),
    ]);
    const processReward = new ProcessReward(store, processor, clock);
    await expect(processReward.execute(referrer, cash?.id ?? "", "CASH")).rejects.toMatchObject({ code: "AWAITING_FIRST_PAYMENT" });

    await store.transaction((tx) => recordPayment(tx, referee, clock.now()));
    expect((await store.findAccount(referee))?.firstPaymentAt).toEqual(clock.now());
    expect((await dashboard(referrer)).recentReferrals[0]).toMatchObject({ pending: true, pendingReason: null });
    expect(await processReward.execute(referrer, cash?.id ?? "", "CASH")).toMatchObject({ accountCreditCents: 500, reward: { status: "COMPLETED" } });
  });

  it("makes the cash payable at once when the referee had already paid (a paid App Store purchase counts)", async () => {
    const referrer = await newUser("Frances Allen");
    const referee = await newUser("Radia Perlman");
    const transaction: VerifiedStoreTransaction = {
      originalTransactionId: `otx-${referee}`,
      transactionId: `tx-${referee}`,
      productId: "pro.monthly",
      bundleId: "com.studyservice.app",
      environment: "Sandbox",
      expiresAt: new Date(clock.now().getTime() + 30 * 86_400_000),
      revoked: false,
      appAccountToken: appAccountTokenOf(referee),
      freeTrial: false,
      purchasedAt: clock.now(),
      signedAt: clock.now(),
    };
    const verifier: StoreVerifier = {
      verifyNotification: async () => {
        throw new Error("not used");
      },
      verifyTransaction: async () => transaction,
    };
    const purchase = { receipt: "signed", bundleId: "com.studyservice.app", environment: "Sandbox" };
    await new ConfirmStorePurchase(store, verifier, clock).execute(referee, purchase);
    expect((await store.findAccount(referee))?.firstPaymentAt).toEqual(clock.now());
    await new SignUpWithCode(store, clock, limits).execute(referee, await codeOf(referrer), true);
    const { rewards } = await new StartTrial(store, clock, 90, limits).execute(referee, true);
    expect(rewards.find((reward) => reward.rewardType === "CASH")).toMatchObject({ status: "PENDING", pendingReason: null });

    // A store free trial is no payment.
    const trialUser = await newUser("Ken Thompson");
    const freeTrial = { ...transaction, originalTransactionId: `otx-${trialUser}`, appAccountToken: appAccountTokenOf(trialUser), freeTrial: true };
    await new ConfirmStorePurchase(store, { ...verifier, verifyTransaction: async () => freeTrial }, clock).execute(trialUser, purchase);
    expect((await store.findAccount(trialUser))?.firstPaymentAt).toBeNull();
  });

  it("refuses a referee who pays with the referrer's card (same Stripe fingerprint) as SELF_REFERRAL", async () => {
    const referrer = await newUser("Mallory Main");
    const second = await newUser("Mallory Second");
    await subscribe(referrer, "active", "Xt5EWLLDS7FJjR1c");
    await new SignUpWithCode(store, clock, limits).execute(second, await codeOf(referrer), true);
    await subscribe(second, "trialing", "Xt5EWLLDS7FJjR1c");
    await expect(new StartTrial(store, clock, 90, limits).execute(second, true)).rejects.toMatchObject({ code: "SELF_REFERRAL" });
    expect(await db.referralReward.count({ where: { userId: referrer } })).toBe(0);
  });

  it("limits a referrer's sign-ups and rewards per period (REFERRAL_LIMIT_REACHED), and counts afresh once the period moved on", async () => {
    const tight = { periodDays: 30, signupsPerPeriod: 2, rewardsPerPeriod: 1 };
    const referrer = await newUser("Busy Referrer");
    const code = await codeOf(referrer);
    const friends = [await newUser("Friend One"), await newUser("Friend Two"), await newUser("Friend Three")];
    const signUp = new SignUpWithCode(store, clock, tight);
    await signUp.execute(friends[0], code, true);
    await signUp.execute(friends[1], code, true);
    await expect(signUp.execute(friends[2], code, true)).rejects.toMatchObject({ code: "REFERRAL_LIMIT_REACHED", action: "RETRY_LATER" });

    const startTrial = new StartTrial(store, clock, 90, tight);
    for (const friend of friends) await subscribe(friend, "trialing");
    await startTrial.execute(friends[0], true);
    await expect(startTrial.execute(friends[1], true)).rejects.toMatchObject({ code: "REFERRAL_LIMIT_REACHED" });

    clock.advance(31 * 86_400_000);
    try {
      await subscribe(friends[1], "trialing");
      await expect(startTrial.execute(friends[1], true)).resolves.toMatchObject({ referral: { status: "TRIAL_STARTED" } });
      await expect(signUp.execute(friends[2], code, true)).resolves.toMatchObject({ status: "PENDING" });
    } finally {
      clock.set("2026-11-29T12:00:00Z");
    }
  });

  it("stores rewards past their validity as EXPIRED (and their referral, when nothing was processed), once", async () => {
    const referrer = await newUser("Barbara Liskov");
    const referee = await newUser("Dennis Ritchie");
    await new SignUpWithCode(store, clock, limits).execute(referee, await codeOf(referrer), true);
    await subscribe(referee, "trialing");
    const { referral, rewards } = await new StartTrial(store, clock, 90, limits).execute(referee, true);
    const expire = new ExpireRewards(store, clock);
    clock.advance(89 * 86_400_000);
    try {
      await expire.execute();
      expect(await db.referralReward.count({ where: { referralId: referral.id, status: "PENDING" } })).toBe(2);
      clock.advance(86_400_000);
      expect(await expire.execute()).toBeGreaterThanOrEqual(2);
      const stored = await db.referralReward.findMany({ where: { id: { in: rewards.map((reward) => reward.id) } } });
      expect(stored.map((reward) => [reward.status, reward.pendingReason])).toEqual([
        ["EXPIRED", null],
        ["EXPIRED", null],
      ]);
      expect((await db.referral.findUnique({ where: { id: referral.id } }))?.status).toBe("EXPIRED");
      expect(await expire.execute()).toBe(0);
      expect((await dashboard(referrer)).recentReferrals[0]).toMatchObject({ status: "EXPIRED", pending: false, pendingReason: null });
    } finally {
      clock.set("2026-11-29T12:00:00Z");
    }
  });
});
