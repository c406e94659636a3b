import fc from "fast-check";
import { prismaOptions } from "@study/db";
import { fixedClock } from "@study/platform/clock";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import { PrismaBillingQueries } from "../../src/adapters/db/prisma-billing-queries";
import { PrismaBillingStore } from "../../src/adapters/db/prisma-billing-store";
import { GetAccountCredits } from "../../src/application/get-account-credits";
import { GetEntitlement } from "../../src/application/get-entitlement";
import { GetReferralDashboard } from "../../src/application/get-referral-dashboard";
import { ProcessorError, type PaymentProcessor } from "../../src/application/ports/payment-processor.port";
import { ProcessReward } from "../../src/application/process-reward";
import { RegisterBillingUser } from "../../src/application/register-billing-user";
import { RequestWithdrawal } from "../../src/application/request-withdrawal";
import { CompleteWithdrawal, ReturnWithdrawal, SendPayout } from "../../src/application/send-payout";
import { SignUpWithCode } from "../../src/application/sign-up-with-code";
import { recordPayment } from "../../src/application/first-payment";
import { StartTrial } from "../../src/application/start-trial";
import { rewardCredited } from "../../src/domain/ledger";
import { PrismaClient } from "../../src/generated/prisma/client";
import { billingService } from "../../src/service";

/** The payment processor as the use cases see it: records calls, answers with ids, refuses or fails on demand. */
class RecordingProcessor implements PaymentProcessor {
  customers = new Map<string, string>();
  payouts = new Map<string, { payoutId: string; amountCents: number }>();
  extensions: { subscriptionId: string; until: Date; key: string }[] = [];
  next: "ok" | "refuse" | "outage" = "ok";

  private answer(): void {
    const next = this.next;
    this.next = "ok";
    if (next === "refuse") throw new ProcessorError("The payment processor refused the request: account closed", false);
    if (next === "outage") throw new ProcessorError("The payment processor is unavailable: connection reset", true);
  }

  async createCustomer(input: { userId: string }, key: string) {
    this.answer();
    const id = this.customers.get(key) ?? `cus_${input.userId}`;
    this.customers.set(key, id);
    return { customerId: id };
  }

  async createPayout(input: { amountCents: number }, key: string) {
    this.answer();
    const payout = this.payouts.get(key) ?? { payoutId: `po_${this.payouts.size + 1}`, amountCents: input.amountCents };
    this.payouts.set(key, payout);
    return { payoutId: payout.payoutId };
  }

  async extendSubscription(input: { subscriptionId: string; until: Date }, key: string) {
    this.answer();
    this.extensions.push({ ...input, key });
  }
}

const silent = { info: () => undefined, warn: () => undefined };
const limits = { periodDays: 30, signupsPerPeriod: 20, rewardsPerPeriod: 10 };

describe("billing ledger, referrals and withdrawals on PostgreSQL", () => {
  let db: PrismaClient;
  let store: PrismaBillingStore;
  const processor = new RecordingProcessor();
  const clock = fixedClock("2026-11-24T12:00:00Z");
  let users = 0;

  beforeAll(async () => {
    const url = await createTestDatabase("billing", migrationSources(billingService));
    db = new PrismaClient(prismaOptions(url, 20));
    store = new PrismaBillingStore(db);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  async function newUser(name = "Ada Lovelace") {
    users += 1;
    const userId = `user-${users}-${Date.now()}`;
    await new RegisterBillingUser(store, processor, silent).execute({ userId, name, email: `${userId}@example.com` });
    return userId;
  }

  async function credit(userId: string, cents: number) {
    await store.transaction(async (tx) => {
      const account = await tx.lockAccount(userId);
      if (!account) throw new Error("no account");
      await tx.recordMovement(userId, rewardCredited(cents), { creditCents: account.creditCents + cents, reservedCents: account.reservedCents }, {});
    });
  }

  async function ledgerMatchesAccount(userId: string) {
    const [sums] = await db.$queryRaw<{ credit: bigint | null; reserved: bigint | null }[]>`
      SELECT sum(credit_delta_cents) AS credit, sum(reserved_delta_cents) AS reserved FROM ledger_entry WHERE user_id = ${userId}`;
    const account = await store.findAccount(userId);
    expect({ creditCents: Number(sums.credit ?? 0), reservedCents: Number(sums.reserved ?? 0) }).toEqual({
      creditCents: account?.creditCents,
      reservedCents: account?.reservedCents,
    });
    return account;
  }

  /** A Stripe subscription of the user as its webhooks write it (status as Stripe names it). */
  async function subscribe(userId: string, status: string, at = clock.now()) {
    const customer = (await store.findAccount(userId))?.processorCustomerId ?? "";
    await store.transaction((tx) =>
      tx.upsertSubscription(
        userId,
        "pro_monthly",
        {
          processorSubscriptionId: `sub_${userId}`,
          processorCustomerId: customer,
          userId,
          status,
          priceId: "price_pro_monthly",
          periodStart: clock.now(),
          periodEnd: new Date(clock.now().getTime() + 30 * 86_400_000),
          cancelAtPeriodEnd: false,
          seats: 1,
          trialStart: null,
          trialEnd: null,
          cardFingerprint: `fp-${userId}`.slice(0, 64),
        },
        at,
      ),
    );
  }

  const sendPayout = () => new SendPayout(store, processor, clock);
  const requestWithdrawal = () => new RequestWithdrawal(store, sendPayout(), clock, silent);

  it("makes one account, one active code and one processor customer per user, however often registration is delivered", async () => {
    const userId = await newUser();
    await new RegisterBillingUser(store, processor, silent).execute({ userId, name: "Ada Lovelace", email: "again@example.com" });
    expect(await db.billingAccount.count({ where: { userId } })).toBe(1);
    const codes = await db.referralCode.findMany({ where: { userId } });
    expect(codes).toHaveLength(1);
    expect(codes[0].code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect((await store.findAccount(userId))?.processorCustomerId).toBe(`cus_${userId}`);
    expect([...processor.customers.keys()].filter((key) => key === `customer-${userId}`)).toHaveLength(1);
  });

  it("lets exactly three of 50 parallel withdrawals of 10.00 through against a credit of 30.00", async () => {
    const userId = await newUser();
    await credit(userId, 3_000);
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, () => requestWithdrawal().execute(userId, 1_000)));
    const succeeded = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(succeeded).toHaveLength(3);
    expect(refused).toHaveLength(47);
    expect(refused.every((outcome) => (outcome.reason as { code?: string }).code === "INSUFFICIENT_CREDIT")).toBe(true);
    const account = await ledgerMatchesAccount(userId);
    expect(account).toMatchObject({ creditCents: 0, reservedCents: 3_000 });
    expect(await db.withdrawal.count({ where: { userId, status: "PROCESSING" } })).toBe(3);
    expect(await db.ledgerEntry.count({ where: { userId, kind: "WITHDRAWAL_RESERVED" } })).toBe(3);
  });

  it("keeps the credit equal to the ledger for random sequences of credits, withdrawals and settlements", async () => {
    const operation = fc.oneof(
      fc.record({ type: fc.constant("credit" as const), cents: fc.integer({ min: 1, max: 4_000 }) }),
      fc.record({ type: fc.constant("withdraw" as const), cents: fc.integer({ min: 900, max: 5_000 }) }),
      fc.record({ type: fc.constant("paid" as const) }),
      fc.record({ type: fc.constant("failed" as const) }),
      fc.record({ type: fc.constant("refused" as const), cents: fc.integer({ min: 1_000, max: 2_000 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
        const userId = await newUser();
        const model = { credit: 0, reserved: 0, open: [] as { id: string; cents: number }[] };
        for (const op of operations) {
          if (op.type === "credit") {
            await credit(userId, op.cents);
            model.credit += op.cents;
          } else if (op.type === "withdraw" || op.type === "refused") {
            if (op.type === "refused") processor.next = "refuse";
            try {
              const { withdrawal } = await requestWithdrawal().execute(userId, op.cents);
              model.credit -= op.cents;
              model.reserved += op.cents;
              model.open.push({ id: withdrawal.id, cents: op.cents });
            } catch (error) {
              const code = (error as { code?: string }).code;
              if (op.cents < 1_000) expect(code).toBe("MIN_AMOUNT");
              else if (op.cents > model.credit) expect(code).toBe("INSUFFICIENT_CREDIT");
              else expect(code).toBe("STRIPE_ERROR"); // refused: failed at once, credit returned
            }
            processor.next = "ok";
          } else {
            const settled = model.open.shift();
            if (!settled) continue;
            if (op.type === "paid") {
              await new CompleteWithdrawal(store, clock).execute(settled.id);
              model.reserved -= settled.cents;
            } else {
              await new ReturnWithdrawal(store, clock).execute(settled.id, "account closed");
              model.reserved -= settled.cents;
              model.credit += settled.cents;
            }
          }
          const account = await ledgerMatchesAccount(userId);
          expect(account).toMatchObject({ creditCents: model.credit, reservedCents: model.reserved });
        }
      }),
      { numRuns: 12 },
    );
  });

  it("refuses a withdrawal with PROCESSING_FAILED while the user has no processor customer, keeping the credit", async () => {
    const userId = `user-no-customer-${Date.now()}`;
    await store.ensureAccount({ userId, name: "Ada Lovelace", email: `${userId}@example.com` }, () => `NC${String(Date.now()).slice(-6)}`);
    await credit(userId, 2_000);
    await expect(requestWithdrawal().execute(userId, 1_000)).rejects.toMatchObject({
      kind: "precondition",
      code: "PROCESSING_FAILED",
      action: "RETRY_LATER",
    });
    expect(await ledgerMatchesAccount(userId)).toMatchObject({ creditCents: 2_000, reservedCents: 0 });
  });

  it("no longer counts or offers a reward past its expiry", async () => {
    const referrer = await newUser("Grace Hopper");
    const referee = await newUser("Ada Lovelace");
    await new SignUpWithCode(store, clock, limits).execute(referee, (await store.findActiveCode(referrer))?.code ?? "", true);
    await subscribe(referee, "trialing");
    const { rewards } = await new StartTrial(store, clock, 90, limits).execute(referee, true);
    const queries = new PrismaBillingQueries(db);
    const dashboard = new GetReferralDashboard(store, queries, clock, { goal: 10, leaderboardSize: 10, recentReferrals: 5 });
    expect((await dashboard.execute(referrer)).pendingAmountCents).toBe(500);
    clock.advance(91 * 86_400_000);
    expect((await dashboard.execute(referrer)).pendingAmountCents).toBe(0);
    expect((await new GetAccountCredits(store, queries, clock).execute(referrer)).pendingRewards).toEqual([]);
    const cash = rewards.find((reward) => reward.rewardType === "CASH");
    await expect(new ProcessReward(store, processor, clock).execute(referrer, cash?.id ?? "", "CASH")).rejects.toMatchObject({ code: "NOT_PENDING" });
    clock.set("2026-11-24T12:00:00Z");
  });

  it("answers a reward id that is not a UUID as an unknown one (NOT_FOUND), not as a database failure", async () => {
    const userId = await newUser();
    for (const rewardId of ["~ l", "'ßéKD", "1", `${"f".repeat(36)}`]) {
      for (const type of ["CASH", "FREE_MONTH"] as const) {
        await expect(new ProcessReward(store, processor, clock).execute(userId, rewardId, type)).rejects.toMatchObject({
          kind: "precondition",
          code: "NOT_FOUND",
        });
      }
    }
  });

  it("sends a payout once when the processor was down at the request (the outbox consumer's retry)", async () => {
    const userId = await newUser();
    await credit(userId, 1_500);
    processor.next = "outage";
    const { withdrawal } = await requestWithdrawal().execute(userId, 1_000);
    expect(withdrawal).toMatchObject({ status: "PROCESSING", processorPaymentId: null });
    const retried = await sendPayout().execute(withdrawal.id);
    const again = await sendPayout().execute(withdrawal.id);
    expect(retried.withdrawal.processorPaymentId).toMatch(/^po_/);
    expect(again.withdrawal.processorPaymentId).toBe(retried.withdrawal.processorPaymentId);
    expect([...processor.payouts.keys()].filter((key) => key === `payout-${withdrawal.id}`)).toHaveLength(1);
    // Paid twice by a redelivered webhook: settled once.
    await new CompleteWithdrawal(store, clock).execute(withdrawal.id);
    expect(await new CompleteWithdrawal(store, clock).execute(withdrawal.id)).toBeNull();
    expect(await ledgerMatchesAccount(userId)).toMatchObject({ creditCents: 500, reservedCents: 0 });
  });

  it("runs the referral program: code → referral → trial → rewards → credit → withdrawal, with the dashboard adding up", async () => {
    const referrer = await newUser("Grace Brewster Hopper");
    const referee = await newUser("Ada Lovelace");
    const stranger = await newUser("Alan Turing");
    const code = (await store.findActiveCode(referrer))?.code ?? "";
    const signUp = new SignUpWithCode(store, clock, limits);

    await expect(signUp.execute(referrer, code, true)).rejects.toMatchObject({ code: "SELF_REFERRAL" });
    await expect(signUp.execute(referee, "NOPE2345", true)).rejects.toMatchObject({ code: "INVALID_CODE" });
    await expect(signUp.execute(referee, code, false)).rejects.toMatchObject({ code: "EMAIL_NOT_VERIFIED" });
    const referral = await signUp.execute(referee, ` ${code.toLowerCase().slice(0, 4)}-${code.slice(4)} `, true);
    expect(referral).toMatchObject({ referrerId: referrer, refereeId: referee, status: "PENDING" });
    await expect(signUp.execute(referee, code, true)).rejects.toMatchObject({ code: "DUPLICATE_REFERRAL" });
    expect((await store.findActiveCode(referrer))?.usageCount).toBe(1);

    const startTrial = new StartTrial(store, clock, 90, limits);
    await expect(startTrial.execute(stranger, true)).rejects.toMatchObject({ code: "NO_REFERRAL" });
    // A trial start is a real one: the referee's trialing subscription, as Stripe's webhooks wrote it.
    await expect(startTrial.execute(referee, true)).rejects.toMatchObject({ code: "NO_SUBSCRIPTION" });
    await subscribe(referee, "trialing");
    const { rewards } = await startTrial.execute(referee, true);
    await expect(startTrial.execute(referee, true)).rejects.toMatchObject({ code: "NO_REFERRAL" });
    const cash = rewards.find((reward) => reward.rewardType === "CASH");
    const freeMonth = rewards.find((reward) => reward.rewardType === "FREE_MONTH");
    expect(cash).toMatchObject({ userId: referrer, cashAmountCents: 500, status: "PENDING", pendingReason: "AWAITING_FIRST_PAYMENT" });
    expect(freeMonth).toMatchObject({ userId: referee, freeMonths: 1, status: "PENDING", pendingReason: null });

    const processReward = new ProcessReward(store, processor, clock);
    await expect(processReward.execute(stranger, cash?.id ?? "", "CASH")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(processReward.execute(referrer, cash?.id ?? "", "CASH")).rejects.toMatchObject({ code: "AWAITING_FIRST_PAYMENT" });
    // The referee's first payment (what invoice.paid records) makes the cash payable.
    await store.transaction((tx) => recordPayment(tx, referee, clock.now()));
    // Canceled since: a free month has no subscription to extend.
    await subscribe(referee, "canceled", new Date(clock.now().getTime() + 1_000));
    await expect(processReward.execute(referee, freeMonth?.id ?? "", "FREE_MONTH")).rejects.toMatchObject({ code: "NO_SUBSCRIPTION" });
    const processed = await processReward.execute(referrer, cash?.id ?? "", "CASH");
    expect(processed).toMatchObject({ accountCreditCents: 500, reward: { status: "COMPLETED" } });
    await expect(processReward.execute(referrer, cash?.id ?? "", "CASH")).rejects.toMatchObject({ code: "NOT_PENDING" });
    await ledgerMatchesAccount(referrer);

    const dashboard = await new GetReferralDashboard(store, new PrismaBillingQueries(db), clock, {
      goal: 10,
      leaderboardSize: 100,
      recentReferrals: 5,
    }).execute(referrer);
    expect(dashboard).toMatchObject({
      totalEarnedCents: 500,
      earnedThisWeekCents: 500,
      pendingAmountCents: 0,
      totalReferrals: 1,
      goal: 10,
      activeTrials: 1,
      pending: 0,
      referralCode: code,
      accountCreditCents: 500,
      recentReferrals: [{ initials: "AL", name: "Ada L.", status: "TRIAL_STARTED", amountCents: 500, pending: false, pendingReason: null }],
    });
    expect(dashboard.leaderboard).toContainEqual({ name: "Grace H.", amountCents: 500 });
    expect(dashboard.howItWorks.length).toBeGreaterThan(2);

    await expect(requestWithdrawal().execute(referrer, 500)).rejects.toMatchObject({ code: "MIN_AMOUNT" });
    await expect(requestWithdrawal().execute(referrer, 1_000)).rejects.toMatchObject({ code: "INSUFFICIENT_CREDIT" });
    const credits = await new GetAccountCredits(store, new PrismaBillingQueries(db), clock).execute(referee);
    expect(credits).toMatchObject({ accountCreditCents: 0, withdrawals: [], pendingRewards: [] });
  });

  it("lets one of two racing signups of the same user through and answers the other DUPLICATE_REFERRAL", async () => {
    const [first, second, referee] = [await newUser("Grace Hopper"), await newUser("Alan Turing"), await newUser("Ada Lovelace")];
    const codes = [(await store.findActiveCode(first))?.code ?? "", (await store.findActiveCode(second))?.code ?? ""];
    const signUp = new SignUpWithCode(store, clock, limits);
    const outcomes = await Promise.allSettled(codes.flatMap((code) => [signUp.execute(referee, code, true), signUp.execute(referee, code, true)]));
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(refused.map((outcome) => (outcome.reason as { code?: string }).code)).toEqual([
      "DUPLICATE_REFERRAL",
      "DUPLICATE_REFERRAL",
      "DUPLICATE_REFERRAL",
    ]);
    expect(await db.referral.count({ where: { refereeId: referee } })).toBe(1);
  });

  it("gives a store subscriber's free month as a local extension the entitlement honours after the store's expiry", async () => {
    const referrer = await newUser("Grace Hopper");
    const referee = await newUser("Ada Lovelace");
    await new SignUpWithCode(store, clock, limits).execute(referee, (await store.findActiveCode(referrer))?.code ?? "", true);
    const expiresAt = new Date(clock.now().getTime() + 5 * 86_400_000);
    // The store subscription is confirmed first: it is the real trial the referral needs.
    await store.transaction((tx) =>
      tx.saveStoreSubscription({
        originalTransactionId: `otx-${referee}`,
        userId: referee,
        lastTransactionId: `tx-${referee}`,
        productId: "pro.monthly",
        status: "active",
        expiresAt,
        gracePeriodExpiresAt: null,
        environment: "Sandbox",
        bundleId: "com.studyservice.app",
        signedAt: clock.now(),
      }),
    );
    const { rewards } = await new StartTrial(store, clock, 90, limits).execute(referee, true);
    const freeMonth = rewards.find((reward) => reward.rewardType === "FREE_MONTH");
    const processed = await new ProcessReward(store, processor, clock).execute(referee, freeMonth?.id ?? "", "FREE_MONTH");
    const until = new Date(expiresAt.getTime() + 30 * 86_400_000);
    expect(processed.reward.subscriptionExtension).toBe(`store:otx-${referee} until ${until.toISOString()}`);
    const getEntitlement = new GetEntitlement(store, clock);
    expect(await getEntitlement.execute(referee)).toMatchObject({ isPro: true, source: "store", expiresAt });
    clock.advance(6 * 86_400_000);
    expect(await getEntitlement.execute(referee)).toMatchObject({ isPro: true, source: "referral", expiresAt: until });
    clock.advance(30 * 86_400_000);
    expect(await getEntitlement.execute(referee)).toMatchObject({ isPro: false, source: "none" });
    clock.set("2026-11-24T12:00:00Z");
  });
});
