import { formatCents } from "@study/platform/money";
import { billing } from "@study/contracts";
import { bindUnaryHandlers, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { bodyParsers } from "../../src/app";
import { startStandInGateway, type StandInGateway } from "./route-harness";
import {
  amountSchema,
  billingRoutes,
  centsToAmount,
  entitlementSourceJson,
  referralStatus,
  rewardStatus,
  rewardType,
  withdrawalStatus,
} from "../../src/routes/billing";
import { referralRoutes } from "../../src/routes/referral";
import { storeRoutes } from "../../src/routes/store";

const { ReferralStatus, RewardStatus, RewardType, WithdrawalStatus } = billing;

describe("money between the REST surface (currency units) and the services (integer cents)", () => {
  it("shows cents as currency units", () => {
    expect(centsToAmount(500)).toBe(5);
    expect(centsToAmount(1250)).toBe(12.5);
    expect(centsToAmount(1001)).toBe(10.01);
    expect(centsToAmount(0)).toBe(0);
    expect(JSON.stringify({ amount: centsToAmount(1999) })).toBe('{"amount":19.99}');
  });

  it("writes exact cents with two decimals in sentences", () => {
    expect(formatCents(1000)).toBe("10.00");
    expect(formatCents(1250)).toBe("12.50");
    expect(formatCents(5)).toBe("0.05");
    expect(formatCents(123456789)).toBe("1234567.89");
    expect(formatCents(-250)).toBe("-2.50");
  });

  it("turns an amount with at most two decimals into cents, exactly", () => {
    const cents = (amount: unknown) => amountSchema.parse(amount);
    expect(cents(10)).toBe(1000);
    expect(cents(12.5)).toBe(1250);
    expect(cents(10.01)).toBe(1001); // 10.01 * 100 is 1000.9999999999999 in floating point
    expect(cents(0.29)).toBe(29); // 0.29 * 100 is 28.999999999999996
    expect(cents(1.005e2)).toBe(10050);
    expect(cents(0)).toBe(0);
    expect(cents(90_000_000_000_000)).toBe(9_000_000_000_000_000);
  });

  it("refuses what is not such an amount", () => {
    const problem = (amount: unknown) => {
      const result = amountSchema.safeParse(amount);
      return result.success ? undefined : result.error.issues[0].message;
    };
    expect(problem(10.001)).toBe("must have at most two decimals");
    expect(problem(0.001)).toBe("must have at most two decimals");
    expect(problem(1e-7)).toBe("must have at most two decimals");
    expect(problem(-5)).toBe("must not be negative");
    expect(problem(-0.5)).toBe("must not be negative");
    expect(problem(1e21)).toBe("is too large");
    for (const notANumber of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "10", "10.00", null, true, [10], { amount: 10 }]) {
      expect(amountSchema.safeParse(notANumber).success).toBe(false);
    }
  });
});

describe("enum names between proto and the spec", () => {
  it("maps every proto value to the spec's name", () => {
    const referralStatuses = Object.values(ReferralStatus).filter((value): value is billing.ReferralStatus => typeof value === "number" && value > 0);
    expect(referralStatuses.map(referralStatus.toRest)).toEqual(["PENDING", "TRIAL_STARTED", "COMPLETED", "EXPIRED", "CANCELLED"]);
    expect(referralStatus.names).toEqual(["PENDING", "TRIAL_STARTED", "COMPLETED", "EXPIRED", "CANCELLED"]);
    expect([RewardType.REWARD_TYPE_CASH, RewardType.REWARD_TYPE_FREE_MONTH].map(rewardType.toRest)).toEqual(["CASH", "FREE_MONTH"]);
    expect(rewardType.names).toEqual(["CASH", "FREE_MONTH"]);
    expect(
      [
        RewardStatus.REWARD_STATUS_PENDING,
        RewardStatus.REWARD_STATUS_PROCESSING,
        RewardStatus.REWARD_STATUS_COMPLETED,
        RewardStatus.REWARD_STATUS_FAILED,
        RewardStatus.REWARD_STATUS_EXPIRED,
      ].map(rewardStatus.toRest),
    ).toEqual(["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"]);
    expect(rewardStatus.names).toEqual(["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED"]);
    expect(
      [WithdrawalStatus.WITHDRAWAL_STATUS_PROCESSING, WithdrawalStatus.WITHDRAWAL_STATUS_COMPLETED, WithdrawalStatus.WITHDRAWAL_STATUS_FAILED].map(
        withdrawalStatus.toRest,
      ),
    ).toEqual(["PROCESSING", "COMPLETED", "FAILED"]);
    expect(withdrawalStatus.names).toEqual(["PROCESSING", "COMPLETED", "FAILED"]);
  });

  it("maps the spec's reward types to proto", () => {
    expect(rewardType.toProto("CASH")).toBe(RewardType.REWARD_TYPE_CASH);
    expect(rewardType.toProto("FREE_MONTH")).toBe(RewardType.REWARD_TYPE_FREE_MONTH);
  });

  it("treats a value the spec has no name for as a broken answer (internal error), never as a name", () => {
    for (const broken of [
      () => referralStatus.toRest(ReferralStatus.REFERRAL_STATUS_UNSPECIFIED),
      () => rewardType.toRest(RewardType.UNRECOGNIZED),
      () => rewardStatus.toRest(RewardStatus.REWARD_STATUS_UNSPECIFIED),
      () => withdrawalStatus.toRest(99 as billing.WithdrawalStatus),
      () => entitlementSourceJson("paypal"),
    ]) {
      expect(broken).toThrow(expect.objectContaining({ kind: "internal", code: "INTERNAL_ERROR" }));
    }
    expect(entitlementSourceJson("store")).toBe("store");
  });
});

// --- the routes against an in-process billing service --------------------------------------------------

const logger = createLogger("test", "silent");
const USER_ID = "user-1";
const at = new Date("2026-11-20T10:00:00.000Z");

/** What the stand-in received, and what it answers next. */
const calls = new Map<string, unknown[]>();
const record = (name: string, request: unknown) => calls.set(name, [...(calls.get(name) ?? []), request]);
const callsOf = (name: string) => calls.get(name) ?? [];
let failure: AppError | undefined;
const failIfAsked = () => {
  if (failure) throw failure;
};

const cashReward: billing.Reward = {
  id: "reward-cash",
  referralId: "referral-1",
  rewardType: RewardType.REWARD_TYPE_CASH,
  cashAmountCents: 500,
  userId: "referrer-1",
  status: RewardStatus.REWARD_STATUS_PENDING,
  expiresAt: new Date("2027-02-18T10:00:00.000Z"),
  createdAt: at,
};
const monthReward: billing.Reward = {
  id: "reward-month",
  referralId: "referral-1",
  rewardType: RewardType.REWARD_TYPE_FREE_MONTH,
  freeMonths: 1,
  userId: USER_ID,
  status: RewardStatus.REWARD_STATUS_PENDING,
  createdAt: at,
};
const withdrawal: billing.Withdrawal = {
  id: "withdrawal-1",
  amountCents: 1001,
  status: WithdrawalStatus.WITHDRAWAL_STATUS_PROCESSING,
  requestedAt: at,
};

function startBilling(): Promise<RunningGrpcServer> {
  return startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: billing.BillingServiceService,
        implementation: bindUnaryHandlers(logger, billing.BillingServiceService, {
          async getReferralDashboard(request) {
            record("getReferralDashboard", request);
            return {
              totalEarnedCents: 1500,
              earnedThisWeekCents: 500,
              pendingAmountCents: 1250,
              leaderboard: [
                { name: "Ada L.", amountCents: 2500 },
                { name: "Alan T.", amountCents: 1005 },
              ],
              totalReferrals: 4,
              goal: 10,
              activeTrials: 2,
              pending: 1,
              recentReferrals: [
                {
                  initials: "GH",
                  name: "Grace H.",
                  status: ReferralStatus.REFERRAL_STATUS_TRIAL_STARTED,
                  date: at,
                  amountCents: 500,
                  pending: true,
                  pendingReason: "AWAITING_FIRST_PAYMENT",
                },
                { initials: "KJ", name: "Katherine J.", status: ReferralStatus.REFERRAL_STATUS_PENDING, date: at, amountCents: 0, pending: false },
              ],
              referralCode: "K7M2QX9P",
              accountCreditCents: 3050,
              rewardsBreakdownUser: "5.00 for every friend who starts a trial",
              rewardsBreakdownFriend: "A free month of Pro",
              howItWorks: ["Share your code", "Your friend starts a trial", "You both get rewarded"],
            };
          },
          async signUpWithCode(request) {
            record("signUpWithCode", request);
            failIfAsked();
            return {
              referralId: "referral-1",
              referrerId: "referrer-1",
              refereeId: request.userId,
              status: ReferralStatus.REFERRAL_STATUS_PENDING,
              signupDate: at,
            };
          },
          async startTrial(request) {
            record("startTrial", request);
            failIfAsked();
            return { referralId: "referral-1", rewards: [{ ...cashReward, pendingReason: "AWAITING_FIRST_PAYMENT" }, monthReward] };
          },
          async processReward(request) {
            record("processReward", request);
            failIfAsked();
            return {
              reward: { ...cashReward, userId: request.userId, status: RewardStatus.REWARD_STATUS_COMPLETED, claimedAt: at },
              message: "5.00 added to your account credit",
              accountCreditCents: 3550,
            };
          },
          async requestWithdrawal(request) {
            record("requestWithdrawal", request);
            failIfAsked();
            return { withdrawal: { ...withdrawal, amountCents: request.amountCents }, accountCreditCents: 3050 - request.amountCents };
          },
          async getAccountCredits(request) {
            record("getAccountCredits", request);
            return {
              accountCreditCents: 2049,
              withdrawals: [
                { ...withdrawal, status: WithdrawalStatus.WITHDRAWAL_STATUS_COMPLETED, completedAt: at, processorPaymentId: "po_123" },
                { ...withdrawal, id: "withdrawal-2", status: WithdrawalStatus.WITHDRAWAL_STATUS_FAILED, failureReason: "account closed" },
              ],
              pendingRewards: [{ id: "reward-cash", amountCents: 500, createdAt: at, pendingReason: "AWAITING_FIRST_PAYMENT" }],
              processorCustomerId: "cus_123",
            };
          },
          async createCheckoutSession(request) {
            record("createCheckoutSession", request);
            failIfAsked();
            return { sessionId: "cs_test_1", url: "https://checkout.stripe.com/c/pay/cs_test_1" };
          },
          async createPortalSession(request) {
            record("createPortalSession", request);
            return { url: "https://billing.stripe.com/p/session/test_1" };
          },
          async getSubscription(request) {
            record("getSubscription", request);
            if (request.userId !== USER_ID) return {};
            return {
              subscription: {
                id: "subscription-1",
                plan: "pro_monthly",
                referenceId: "price_pro_monthly",
                processorCustomerId: "cus_123",
                processorSubscriptionId: "sub_123",
                status: "active",
                periodStart: at,
                periodEnd: new Date("2026-12-20T10:00:00.000Z"),
                cancelAtPeriodEnd: false,
                seats: 1,
                userId: USER_ID,
                createdAt: at,
                updatedAt: at,
              },
            };
          },
          async getEntitlement(request) {
            record("getEntitlement", request);
            const expiresAt = new Date("2026-12-20T10:00:00.000Z");
            return {
              entitlement: { isPro: true, source: "stripe", plan: "pro_monthly", expiresAt, inGrace: false },
              appAccountToken: "0b5e8a57-3c2d-5f1e-9a4b-6c7d8e9f0a1b",
            };
          },
          async handleProcessorWebhook(request) {
            record("handleProcessorWebhook", request);
            if (request.signature !== "t=1,v1=good") throw new AppError("validation", "WEBHOOK_FAILURE", "Webhook signature verification failed");
            return { eventId: "evt_1", eventType: "invoice.paid", duplicate: callsOf("handleProcessorWebhook").length > 1 };
          },
          async handleStoreNotification(request) {
            record("handleStoreNotification", request);
            if (request.signedPayload !== "header.payload.signature") {
              throw new AppError("validation", "STORE_VERIFICATION_FAILED", "The store notification could not be verified");
            }
            return { notificationUuid: "8f1c-uuid", notificationType: "DID_RENEW", duplicate: false, status: "active" };
          },
          async confirmStorePurchase(request) {
            record("confirmStorePurchase", request);
            failIfAsked();
            return { isPro: true, entitlement: { isPro: true, source: "store", plan: "com.example.pro", inGrace: true } };
          },
        }),
      },
    ],
  });
}

describe("the billing routes", () => {
  let gateway: StandInGateway;
  let api: StandInGateway["api"];
  const token = "secret-session";

  beforeAll(async () => {
    // The routes mounted as the gateway mounts them, with a stand-in session (any Bearer = USER_ID).
    gateway = await startStandInGateway(
      await startBilling(),
      (clients) => [...referralRoutes(clients), ...billingRoutes(clients), ...storeRoutes(clients)],
      { userId: USER_ID, logger, bodyParsers: bodyParsers("1mb") },
    );
    api = gateway.api;
  });
  afterAll(() => gateway.stop());
  beforeEach(() => {
    calls.clear();
    failure = undefined;
  });

  it("answers 401 UNAUTHORIZED without a session on every route but the webhook and the store notification", async () => {
    const open = new Set(["POST /api/billing/webhook", "POST /api/store/assn"]);
    const { body: document } = await api("GET", "/openapi.json");
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const guarded = operations.filter((operation) => !open.has(operation) && operation !== "GET /openapi.json");
    expect(guarded).toHaveLength(11);
    for (const operation of guarded) {
      const [method, path] = operation.split(" ");
      const { status, body } = await api(method, path, { body: method === "POST" ? {} : undefined });
      expect({ operation, status, code: body.code }).toEqual({ operation, status: 401, code: "UNAUTHORIZED" });
    }
    expect(calls.size).toBe(0);
  });

  it("shows the referral dashboard in currency units with the spec's names", async () => {
    const { status, body } = await api("GET", "/api/referral/dashboard", { token });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      message: "Referral dashboard retrieved",
      data: {
        totalEarned: 15,
        earnedThisWeek: 5,
        pendingAmount: 12.5,
        leaderboard: [
          { name: "Ada L.", amount: 25 },
          { name: "Alan T.", amount: 10.05 },
        ],
        referralProgress: {
          totalReferrals: 4,
          goal: 10,
          activeTrials: 2,
          pending: 1,
          recentReferrals: [
            {
              initials: "GH",
              name: "Grace H.",
              status: "TRIAL_STARTED",
              date: "2026-11-20T10:00:00.000Z",
              amount: 5,
              pending: true,
              pendingReason: "AWAITING_FIRST_PAYMENT",
            },
            {
              initials: "KJ",
              name: "Katherine J.",
              status: "PENDING",
              date: "2026-11-20T10:00:00.000Z",
              amount: 0,
              pending: false,
              pendingReason: null,
            },
          ],
        },
        referralCode: "K7M2QX9P",
        accountCredit: 30.5,
        rewardsBreakdown: { user: "5.00 for every friend who starts a trial", friend: "A free month of Pro" },
        howItWorks: ["Share your code", "Your friend starts a trial", "You both get rewarded"],
      },
    });
    expect(callsOf("getReferralDashboard")).toEqual([{ userId: USER_ID }]);
  });

  it("signs up with a code, and passes the service's refusals on as 400 with the spec's codes", async () => {
    const { status, body } = await api("POST", "/api/referral/signup", { token, body: { code: " K7M2QX9P " } });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      referralId: "referral-1",
      referrerId: "referrer-1",
      refereeId: USER_ID,
      status: "PENDING",
      signupDate: "2026-11-20T10:00:00.000Z",
    });
    // The session's e-mail verification goes to billing, which decides.
    expect(callsOf("signUpWithCode")).toEqual([{ userId: USER_ID, code: "K7M2QX9P", emailVerified: true }]);
    for (const code of ["INVALID_CODE", "SELF_REFERRAL", "DUPLICATE_REFERRAL", "EMAIL_NOT_VERIFIED", "REFERRAL_LIMIT_REACHED"]) {
      failure = new AppError("precondition", code, `refused: ${code}`);
      expect(await api("POST", "/api/referral/signup", { token, body: { code: "ANYCODE1" } })).toMatchObject({
        status: 400,
        body: { success: false, code, error: `refused: ${code}` },
      });
    }
    const missing = await api("POST", "/api/referral/signup", { token, body: {} });
    expect(missing).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR", details: [{ field: "code", message: "is required" }] } });
  });

  it("starts a trial: a CASH reward of 5 for the referrer and a FREE_MONTH for the caller", async () => {
    const { status, body } = await api("POST", "/api/referral/trial-start", { token });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      referralId: "referral-1",
      rewards: [
        {
          id: "reward-cash",
          referralId: "referral-1",
          rewardType: "CASH",
          cashAmount: 5,
          status: "PENDING",
          userId: "referrer-1",
          claimedAt: null,
          expiresAt: "2027-02-18T10:00:00.000Z",
          subscriptionExtension: null,
          pendingReason: "AWAITING_FIRST_PAYMENT",
          createdAt: "2026-11-20T10:00:00.000Z",
        },
        {
          id: "reward-month",
          referralId: "referral-1",
          rewardType: "FREE_MONTH",
          freeMonths: 1,
          status: "PENDING",
          userId: USER_ID,
          claimedAt: null,
          expiresAt: null,
          subscriptionExtension: null,
          pendingReason: null,
          createdAt: "2026-11-20T10:00:00.000Z",
        },
      ],
    });
    expect(callsOf("startTrial")).toEqual([{ userId: USER_ID, emailVerified: true }]);
    for (const code of ["NO_REFERRAL", "NO_SUBSCRIPTION", "EMAIL_NOT_VERIFIED", "SELF_REFERRAL", "REFERRAL_LIMIT_REACHED"]) {
      failure = new AppError("precondition", code, `refused: ${code}`);
      expect(await api("POST", "/api/referral/trial-start", { token })).toMatchObject({ status: 400, body: { code } });
    }
  });

  it("processes a reward with the proto reward type and answers the service's message", async () => {
    const { status, body } = await api("POST", "/api/referral/process-reward", { token, body: { rewardId: "reward-cash", type: "CASH" } });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      message: "5.00 added to your account credit",
      data: { reward: { id: "reward-cash", status: "COMPLETED", cashAmount: 5, claimedAt: "2026-11-20T10:00:00.000Z" }, accountCredit: 35.5 },
    });
    await api("POST", "/api/referral/process-reward", { token, body: { rewardId: "reward-month", type: "FREE_MONTH" } });
    expect(callsOf("processReward")).toEqual([
      { userId: USER_ID, rewardId: "reward-cash", rewardType: RewardType.REWARD_TYPE_CASH },
      { userId: USER_ID, rewardId: "reward-month", rewardType: RewardType.REWARD_TYPE_FREE_MONTH },
    ]);
    expect(await api("POST", "/api/referral/process-reward", { token, body: { rewardId: "reward-cash", type: "BONUS" } })).toMatchObject({
      status: 400,
      body: { code: "VALIDATION_ERROR", details: [{ field: "type", message: "must be one of CASH, FREE_MONTH" }] },
    });
    for (const code of ["NOT_FOUND", "NOT_PENDING", "NO_SUBSCRIPTION"]) {
      failure = new AppError("precondition", code, code);
      expect(await api("POST", "/api/referral/process-reward", { token, body: { rewardId: "r", type: "FREE_MONTH" } })).toMatchObject({
        status: 400,
        body: { code },
      });
    }
    failure = new AppError("upstream", "STRIPE_ERROR", "The payment processor failed");
    expect(await api("POST", "/api/referral/process-reward", { token, body: { rewardId: "r", type: "FREE_MONTH" } })).toMatchObject({
      status: 502,
      body: { code: "STRIPE_ERROR" },
    });
    expect(callsOf("processReward")).toHaveLength(6);
  });

  it("withdraws an amount as exact cents and says what happens", async () => {
    const { status, body } = await api("POST", "/api/referral/withdraw", { token, body: { amount: 10.01 } });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      message: "Withdrawal of 10.01 is being processed",
      data: { withdrawalId: "withdrawal-1", amount: 10.01, status: "PROCESSING", processorPaymentId: null, accountCredit: 20.49 },
    });
    await api("POST", "/api/referral/withdraw", { token, body: { amount: 12.5 } });
    await api("POST", "/api/referral/withdraw", { token, rawBody: '{"amount": 10.00}' });
    expect(callsOf("requestWithdrawal")).toEqual([
      { userId: USER_ID, amountCents: 1001 },
      { userId: USER_ID, amountCents: 1250 },
      { userId: USER_ID, amountCents: 1000 },
    ]);
  });

  it("refuses an amount that is not a number of currency units with two decimals at most, without asking billing", async () => {
    const refusals: [unknown, string][] = [
      [10.001, "must have at most two decimals"],
      [-10, "must not be negative"],
      ["10", "must be a number"],
      [null, "must be a number"],
      [undefined, "is required"],
      [1e300, "is too large"],
    ];
    for (const [amount, message] of refusals) {
      const { status, body } = await api("POST", "/api/referral/withdraw", { token, body: { amount } });
      expect({ amount, status, body }).toEqual({
        amount,
        status: 400,
        body: { success: false, error: "Invalid body", code: "VALIDATION_ERROR", details: [{ field: "amount", message }] },
      });
    }
    expect(callsOf("requestWithdrawal")).toEqual([]);
    // The minimum is billing's rule: 5 goes there, and its refusal comes back.
    failure = new AppError("precondition", "MIN_AMOUNT", "The minimum withdrawal is 10.00");
    expect(await api("POST", "/api/referral/withdraw", { token, body: { amount: 5 } })).toMatchObject({ status: 400, body: { code: "MIN_AMOUNT" } });
    failure = new AppError("precondition", "INSUFFICIENT_CREDIT", "Not enough credit");
    expect(await api("POST", "/api/referral/withdraw", { token, body: { amount: 50 } })).toMatchObject({
      status: 400,
      body: { code: "INSUFFICIENT_CREDIT" },
    });
    expect(callsOf("requestWithdrawal")).toEqual([
      { userId: USER_ID, amountCents: 500 },
      { userId: USER_ID, amountCents: 5000 },
    ]);
  });

  it("lists the account credit, withdrawals and pending rewards", async () => {
    const { status, body } = await api("GET", "/api/referral/account-credits", { token });
    expect(status).toBe(200);
    expect(body.data).toEqual({
      accountCredit: 20.49,
      withdrawals: [
        {
          id: "withdrawal-1",
          amount: 10.01,
          status: "COMPLETED",
          requestedAt: "2026-11-20T10:00:00.000Z",
          completedAt: "2026-11-20T10:00:00.000Z",
          failureReason: null,
          processorPaymentId: "po_123",
        },
        {
          id: "withdrawal-2",
          amount: 10.01,
          status: "FAILED",
          requestedAt: "2026-11-20T10:00:00.000Z",
          completedAt: null,
          failureReason: "account closed",
          processorPaymentId: null,
        },
      ],
      pendingRewards: [{ id: "reward-cash", amount: 5, createdAt: "2026-11-20T10:00:00.000Z", pendingReason: "AWAITING_FIRST_PAYMENT" }],
    });
  });

  it("answers the entitlement, the subscription, and checkout and portal links", async () => {
    expect((await api("GET", "/api/entitlements/me", { token })).body.data).toEqual({
      isPro: true,
      source: "stripe",
      plan: "pro_monthly",
      expiresAt: "2026-12-20T10:00:00.000Z",
      inGrace: false,
      appAccountToken: "0b5e8a57-3c2d-5f1e-9a4b-6c7d8e9f0a1b",
    });
    expect((await api("GET", "/api/billing/subscription", { token })).body.data).toMatchObject({
      id: "subscription-1",
      plan: "pro_monthly",
      referenceId: "price_pro_monthly",
      processorSubscriptionId: "sub_123",
      status: "active",
      periodEnd: "2026-12-20T10:00:00.000Z",
      cancelAtPeriodEnd: false,
      trialStart: null,
      trialEnd: null,
      seats: 1,
    });
    const urls = { plan: "pro_monthly", successUrl: "https://app.example.com/paid", cancelUrl: "https://app.example.com/pricing" };
    expect((await api("POST", "/api/billing/checkout", { token, body: urls })).body).toEqual({
      success: true,
      message: "Checkout session created",
      data: { sessionId: "cs_test_1", url: "https://checkout.stripe.com/c/pay/cs_test_1" },
    });
    expect(callsOf("createCheckoutSession")).toEqual([{ userId: USER_ID, ...urls, trial: false }]);
    await api("POST", "/api/billing/checkout", { token, body: { ...urls, trial: true } });
    expect(callsOf("createCheckoutSession")[1]).toEqual({ userId: USER_ID, ...urls, trial: true });
    expect(await api("POST", "/api/billing/checkout", { token, body: { ...urls, successUrl: "javascript:alert(1)" } })).toMatchObject({
      status: 400,
      body: { code: "VALIDATION_ERROR", details: [{ field: "successUrl" }] },
    });
    failure = new AppError("precondition", "PROCESSING_FAILED", "No payment customer yet");
    expect(await api("POST", "/api/billing/checkout", { token, body: urls })).toMatchObject({ status: 400, body: { code: "PROCESSING_FAILED" } });
    expect((await api("POST", "/api/billing/portal", { token, body: { returnUrl: "https://app.example.com/account" } })).body.data).toEqual({
      url: "https://billing.stripe.com/p/session/test_1",
    });
  });

  it("forwards the webhook's exact bytes and signature, without a session, whatever the content type", async () => {
    const payload = '{\n  "id": "evt_1",\n  "type": "invoice.paid",  "amount": 10.10\n}';
    const first = await api("POST", "/api/billing/webhook", { rawBody: payload, headers: { "stripe-signature": "t=1,v1=good" } });
    expect(first).toMatchObject({ status: 200, body: { received: true, eventId: "evt_1", duplicate: false } });
    const again = await api("POST", "/api/billing/webhook", {
      rawBody: payload,
      headers: { "stripe-signature": "t=1,v1=good", "content-type": "text/plain" },
    });
    expect(again.body).toEqual({ received: true, eventId: "evt_1", duplicate: true });
    const received = callsOf("handleProcessorWebhook") as billing.HandleProcessorWebhookRequest[];
    expect(received.map((request) => Buffer.from(request.payload).toString("utf8"))).toEqual([payload, payload]);
    expect(received.map((request) => request.signature)).toEqual(["t=1,v1=good", "t=1,v1=good"]);
  });

  it("answers a webhook that fails verification 400 WEBHOOK_FAILURE in the envelope", async () => {
    expect(await api("POST", "/api/billing/webhook", { rawBody: '{"id":"evt_1"}', headers: { "stripe-signature": "t=1,v1=forged" } })).toEqual({
      status: 400,
      headers: expect.anything(),
      body: { success: false, error: "Webhook signature verification failed", code: "WEBHOOK_FAILURE" },
    });
    expect(await api("POST", "/api/billing/webhook", { rawBody: '{"id":"evt_1"}' })).toMatchObject({
      status: 400,
      body: { code: "WEBHOOK_FAILURE" },
    });
    expect(await api("POST", "/api/billing/webhook", { rawBody: "x".repeat(1024 * 1024 + 1) })).toMatchObject({
      status: 413,
      body: { code: "PAYLOAD_TOO_LARGE" },
    });
    const signatures = (callsOf("handleProcessorWebhook") as billing.HandleProcessorWebhookRequest[]).map((request) => request.signature);
    expect(signatures).toEqual(["t=1,v1=forged", ""]);
  });

  it("takes the store's notification without a session and refuses an unverifiable one with 400", async () => {
    expect(await api("POST", "/api/store/assn", { body: { signedPayload: "header.payload.signature" } })).toMatchObject({
      status: 200,
      body: {
        success: true,
        data: { notificationUUID: "8f1c-uuid", notificationType: "DID_RENEW", status: "active", duplicate: false },
      },
    });
    expect(await api("POST", "/api/store/assn", { body: { signedPayload: "forged" } })).toMatchObject({
      status: 400,
      body: { code: "STORE_VERIFICATION_FAILED" },
    });
    expect(await api("POST", "/api/store/assn", { body: {} })).toMatchObject({ status: 400, body: { code: "VALIDATION_ERROR" } });
  });

  it("confirms a store purchase with the spec's {success, isPro}", async () => {
    const purchase = { receipt: "header.payload.signature", bundleId: "com.example.study", environment: "Sandbox", productId: "com.example.pro" };
    const { status, body } = await api("POST", "/api/store/confirm", { token, body: purchase });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      isPro: true,
      data: { entitlement: { isPro: true, source: "store", plan: "com.example.pro", expiresAt: null, inGrace: true } },
    });
    expect(callsOf("confirmStorePurchase")).toEqual([{ userId: USER_ID, ...purchase }]);
    expect(await api("POST", "/api/store/confirm", { token, body: { ...purchase, environment: "Xcode" } })).toMatchObject({
      status: 400,
      body: { details: [{ field: "environment", message: "must be one of Sandbox, Production" }] },
    });
    failure = new AppError("forbidden", "STORE_ACCOUNT_MISMATCH", "This purchase belongs to another account");
    expect(await api("POST", "/api/store/confirm", { token, body: purchase })).toMatchObject({
      status: 403,
      body: { code: "STORE_ACCOUNT_MISMATCH" },
    });
  });
});
