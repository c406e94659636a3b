import { eventually, httpClient, requireStatus, sharedTestStack, uniqueSuffix, type SharedStack, type SignedUpUser } from "@study/testkit";
import { subscribeThroughStripe, verifyEmail } from "./referral-helpers";

interface Reward {
  id: string;
  rewardType: "CASH" | "FREE_MONTH";
  status: string;
  userId: string;
  cashAmount?: number;
  freeMonths?: number;
}

/**
 * The referral program, withdrawals, subscriptions and entitlements through the gateway (spec "Referral",
 * "App-store subscriptions", GET /api/entitlements/me), with the billing service on real PostgreSQL and RabbitMQ and
 * Stripe played by the test kit's stand-in: its signed webhooks come back through POST /api/billing/webhook.
 */
describe("billing end to end", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let grace: SignedUpUser;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    grace = await signUp("Grace Hopper");
  });

  /** A user with a full name (first and last: the dashboard shortens it). */
  async function signUp(name: string): Promise<SignedUpUser> {
    const email = `${name.toLowerCase().replace(/\W+/g, ".")}-${uniqueSuffix()}@example.com`;
    const response = requireStatus(
      await api("POST", "/api/auth/signup", { body: { name, email, password: "correct horse battery" } }),
      200,
      "sign-up",
    );
    return { email, token: response.body.session.token as string, cookie: "", userId: response.body.user.id as string };
  }

  /** Billing makes a user's code and Stripe customer from the registration event: wait for them. */
  async function readyUser(name: string): Promise<SignedUpUser & { code: string }> {
    const user = await signUp(name);
    return { ...user, code: await codeOf(user) };
  }

  async function codeOf(user: SignedUpUser): Promise<string> {
    return eventually(async () => {
      const dashboard = await api("GET", "/api/referral/dashboard", { token: user.token });
      return dashboard.status === 200 && dashboard.body.data.referralCode ? (dashboard.body.data.referralCode as string) : undefined;
    }, 20_000);
  }

  const standIn = (path: string) =>
    fetch(`${stack.stripeUrl}/_standin${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });

  /** The referrer's cash reward once billing saw the referee's first payment (no pending reason left). */
  const payable = (referrer: SignedUpUser, rewardId: string | undefined) =>
    eventually(async () => {
      const credits = (await api("GET", "/api/referral/account-credits", { token: referrer.token })).body.data;
      return (credits.pendingRewards as { id: string; pendingReason: string | null }[]).some((r) => r.id === rewardId && r.pendingReason === null)
        ? true
        : undefined;
    }, 20_000);

  /**
   * An honest referral: a friend with a verified e-mail signs up with the code, subscribes through Stripe Checkout
   * (paying the first month) and starts the referral trial: the rewards, the cash payable once billing saw the payment.
   */
  async function referredTrial(code: string, name: string, referrer: SignedUpUser) {
    const friend = await readyUser(name);
    await verifyEmail(stack, friend.userId);
    const signup = await api("POST", "/api/referral/signup", { token: friend.token, body: { code } });
    expect(signup.status).toBe(200);
    await subscribeThroughStripe(api, friend.token);
    const trial = await api("POST", "/api/referral/trial-start", { token: friend.token });
    expect(trial.status).toBe(200);
    const rewards = trial.body.data.rewards as Reward[];
    await payable(referrer, rewards.find((reward) => reward.rewardType === "CASH")?.id);
    return { friend, rewards };
  }

  it("runs a referral from code to credit, refusing what the spec refuses, and notifies both users", async () => {
    const referrer = { ...grace, code: await codeOf(grace) };
    const ada = await readyUser("Ada Lovelace");
    // A referral needs a verified e-mail (issue #29): Ada confirms hers first.
    const unverified = await api("POST", "/api/referral/signup", { token: ada.token, body: { code: referrer.code } });
    expect([unverified.status, unverified.body.code, unverified.body.action]).toEqual([400, "EMAIL_NOT_VERIFIED", "VERIFY_EMAIL"]);
    await verifyEmail(stack, ada.userId);
    await verifyEmail(stack, referrer.userId);

    expect((await api("POST", "/api/referral/signup", { token: ada.token, body: { code: "NOPE2345" } })).body.code).toBe("INVALID_CODE");
    expect((await api("POST", "/api/referral/signup", { token: referrer.token, body: { code: referrer.code } })).body.code).toBe("SELF_REFERRAL");
    expect((await api("POST", "/api/referral/signup", { token: ada.token, body: {} })).body.code).toBe("VALIDATION_ERROR");
    expect((await api("POST", "/api/referral/signup", { body: { code: referrer.code } })).status).toBe(401);

    const signup = await api("POST", "/api/referral/signup", { token: ada.token, body: { code: referrer.code.toLowerCase() } });
    expect(signup.status).toBe(200);
    expect(signup.body.data).toMatchObject({ referrerId: referrer.userId, refereeId: ada.userId, status: "PENDING", signupDate: expect.any(String) });
    const again = await api("POST", "/api/referral/signup", { token: ada.token, body: { code: referrer.code } });
    expect([again.status, again.body.code]).toEqual([400, "DUPLICATE_REFERRAL"]);

    expect((await api("POST", "/api/referral/trial-start", { token: referrer.token })).body.code).toBe("NO_REFERRAL");
    // A trial start is a real one: Ada subscribes through Stripe Checkout first.
    const noTrial = await api("POST", "/api/referral/trial-start", { token: ada.token });
    expect([noTrial.status, noTrial.body.code]).toEqual([400, "NO_SUBSCRIPTION"]);
    const adaSubscription = await subscribeThroughStripe(api, ada.token);
    const trial = await api("POST", "/api/referral/trial-start", { token: ada.token });
    expect(trial.status).toBe(200);
    const rewards = trial.body.data.rewards as Reward[];
    const cash = rewards.find((reward) => reward.rewardType === "CASH");
    const freeMonth = rewards.find((reward) => reward.rewardType === "FREE_MONTH");
    expect(cash).toMatchObject({ cashAmount: 5, status: "PENDING", userId: referrer.userId });
    expect(freeMonth).toMatchObject({ freeMonths: 1, status: "PENDING", userId: ada.userId });
    // Ada paid her first month: the cash is payable once billing has Stripe's invoice.paid.
    await payable(referrer, cash?.id);

    // Another user's reward is NOT_FOUND (400, as the spec says); a free month needs a subscription (Ada cancels hers).
    expect((await standIn(`/subscriptions/${adaSubscription.processorSubscriptionId}/cancel`)).status).toBe(200);
    await eventually(async () =>
      (await api("GET", "/api/billing/subscription", { token: ada.token })).body.data.status === "canceled" ? true : undefined,
    );
    const foreign = await api("POST", "/api/referral/process-reward", { token: ada.token, body: { rewardId: cash?.id, type: "CASH" } });
    expect([foreign.status, foreign.body.code]).toEqual([400, "NOT_FOUND"]);
    const noSubscription = await api("POST", "/api/referral/process-reward", {
      token: ada.token,
      body: { rewardId: freeMonth?.id, type: "FREE_MONTH" },
    });
    expect([noSubscription.status, noSubscription.body.code]).toEqual([400, "NO_SUBSCRIPTION"]);
    const processed = await api("POST", "/api/referral/process-reward", { token: referrer.token, body: { rewardId: cash?.id, type: "CASH" } });
    expect(processed.status).toBe(200);
    expect(processed.body).toMatchObject({ success: true, message: expect.stringContaining("5.00") });
    const twice = await api("POST", "/api/referral/process-reward", { token: referrer.token, body: { rewardId: cash?.id, type: "CASH" } });
    expect([twice.status, twice.body.code]).toEqual([400, "NOT_PENDING"]);

    const dashboard = (await api("GET", "/api/referral/dashboard", { token: referrer.token })).body.data;
    expect(dashboard).toMatchObject({
      totalEarned: 5,
      earnedThisWeek: 5,
      pendingAmount: 0,
      accountCredit: 5,
      referralCode: referrer.code,
      referralProgress: {
        totalReferrals: 1,
        activeTrials: 1,
        pending: 0,
        recentReferrals: [{ initials: "AL", name: "Ada L.", status: "TRIAL_STARTED", amount: 5, pending: false }],
      },
    });
    expect(dashboard.leaderboard).toContainEqual({ name: "Grace H.", amount: 5 });
    expect(dashboard.rewardsBreakdown).toEqual({ user: expect.any(String), friend: expect.any(String) });

    // The spec's events: code used and trial started for the referrer, trial started for the friend, the reward.
    const texts = async (user: SignedUpUser) =>
      ((await api("GET", "/api/notifications", { token: user.token })).body.data.notifications as { content: string }[]).map((n) => n.content);
    await eventually(async () => {
      const referrerTexts = await texts(referrer);
      return referrerTexts.some((text) => text.includes("signed up with your referral code")) &&
        referrerTexts.some((text) => text.includes("started a trial")) &&
        referrerTexts.some((text) => text.includes("added to your account credit"))
        ? true
        : undefined;
    }, 15_000);
    await eventually(async () => ((await texts(ada)).some((text) => text.includes("free month")) ? true : undefined), 15_000);
  });

  it("withdraws credit through a Stripe payout, COMPLETED when Stripe's webhook says it was paid", async () => {
    const referrer = await readyUser("Barbara Liskov");
    expect((await api("POST", "/api/referral/withdraw", { token: referrer.token, body: { amount: 5 } })).body.code).toBe("MIN_AMOUNT");
    expect((await api("POST", "/api/referral/withdraw", { token: referrer.token, body: { amount: 10 } })).body.code).toBe("INSUFFICIENT_CREDIT");
    expect((await api("POST", "/api/referral/withdraw", { token: referrer.token, body: { amount: 10.001 } })).body.code).toBe("VALIDATION_ERROR");
    for (const name of ["Ken Thompson", "Dennis Ritchie"]) {
      const { rewards } = await referredTrial(referrer.code, name, referrer);
      const cash = rewards.find((reward) => reward.rewardType === "CASH");
      expect((await api("POST", "/api/referral/process-reward", { token: referrer.token, body: { rewardId: cash?.id, type: "CASH" } })).status).toBe(
        200,
      );
    }
    const withdrawal = await api("POST", "/api/referral/withdraw", { token: referrer.token, body: { amount: 10 } });
    expect(withdrawal.status).toBe(200);
    expect(withdrawal.body.data).toMatchObject({ amount: 10, status: "PROCESSING", processorPaymentId: expect.stringMatching(/^po_/) });
    expect((await api("GET", "/api/referral/account-credits", { token: referrer.token })).body.data).toMatchObject({
      accountCredit: 0,
      withdrawals: [{ id: withdrawal.body.data.withdrawalId, amount: 10, status: "PROCESSING" }],
      pendingRewards: [],
    });

    expect((await standIn(`/payouts/${withdrawal.body.data.processorPaymentId as string}/settle`)).status).toBe(200);
    const completed = await eventually(async () => {
      const credits = (await api("GET", "/api/referral/account-credits", { token: referrer.token })).body.data;
      return credits.withdrawals[0]?.status === "COMPLETED" ? credits : undefined;
    }, 15_000);
    expect(completed.withdrawals[0].completedAt).toEqual(expect.any(String));
  });

  it("subscribes through Stripe Checkout, unlocks Pro from the webhooks, and turns a free month into 30 more days", async () => {
    const referrer = await readyUser("Frances Allen");
    const friend = await readyUser("Radia Perlman");
    await verifyEmail(stack, friend.userId);
    expect((await api("POST", "/api/referral/signup", { token: friend.token, body: { code: referrer.code } })).status).toBe(200);
    expect((await api("GET", "/api/entitlements/me", { token: friend.token })).body.data).toMatchObject({
      isPro: false,
      source: "none",
      appAccountToken: expect.any(String),
    });
    expect((await api("GET", "/api/billing/subscription", { token: friend.token })).body.data).toBeNull();
    const unknownPlan = await api("POST", "/api/billing/checkout", {
      token: friend.token,
      body: { plan: "gold", successUrl: "https://app.example/ok", cancelUrl: "https://app.example/no" },
    });
    expect([unknownPlan.status, unknownPlan.body.code]).toEqual([400, "VALIDATION_ERROR"]);

    const checkout = await api("POST", "/api/billing/checkout", {
      token: friend.token,
      body: { plan: "pro_monthly", successUrl: "https://app.example/ok", cancelUrl: "https://app.example/no" },
    });
    expect(checkout.status).toBe(200);
    // The student pays on the checkout page (the stand-in's page pays when opened and redirects to successUrl).
    const paid = await fetch(checkout.body.data.url as string, { redirect: "manual" });
    expect([paid.status, paid.headers.get("location")]).toEqual([303, "https://app.example/ok"]);
    const pro = await eventually(async () => {
      const entitlement = (await api("GET", "/api/entitlements/me", { token: friend.token })).body.data;
      return entitlement.isPro ? entitlement : undefined;
    }, 15_000);
    expect(pro).toMatchObject({ source: "stripe", plan: "pro_monthly", inGrace: false });
    const subscription = (await api("GET", "/api/billing/subscription", { token: friend.token })).body.data;
    expect(subscription).toMatchObject({ status: "active", plan: "pro_monthly", userId: friend.userId, cancelAtPeriodEnd: false, seats: 1 });
    expect(
      (await api("POST", "/api/billing/portal", { token: friend.token, body: { returnUrl: "https://app.example/account" } })).body.data.url,
    ).toContain(stack.stripeUrl);

    // Subscribed: the referral trial starts, and the free month is the friend's to claim.
    const trial = await api("POST", "/api/referral/trial-start", { token: friend.token });
    expect(trial.status).toBe(200);
    const freeMonth = (trial.body.data.rewards as Reward[]).find((reward) => reward.rewardType === "FREE_MONTH");
    const given = await api("POST", "/api/referral/process-reward", { token: friend.token, body: { rewardId: freeMonth?.id, type: "FREE_MONTH" } });
    expect(given.status).toBe(200);
    const until = new Date(new Date(subscription.periodEnd as string).getTime() + 30 * 86_400_000).toISOString();
    expect(given.body.data.reward).toMatchObject({
      status: "COMPLETED",
      subscriptionExtension: `stripe:${subscription.processorSubscriptionId as string} until ${until}`,
    });
    await eventually(async () => {
      const current = (await api("GET", "/api/billing/subscription", { token: friend.token })).body.data;
      return current.status === "trialing" && current.trialEnd === until ? true : undefined;
    }, 15_000);
  });

  it("refuses unsigned processor webhooks and unverifiable store payloads in the envelope, without a session", async () => {
    const forged = await api("POST", "/api/billing/webhook", {
      rawBody: JSON.stringify({ id: "evt_forged", type: "payout.paid" }),
      headers: { "stripe-signature": "t=1,v1=bad" },
    });
    expect([forged.status, forged.body.success, forged.body.code]).toEqual([400, false, "WEBHOOK_FAILURE"]);
    const store = await api("POST", "/api/store/assn", { body: { signedPayload: "a.b.c" } });
    expect([store.status, store.body.code]).toEqual([400, "STORE_VERIFICATION_FAILED"]);
    const confirm = await api("POST", "/api/store/confirm", {
      token: grace.token,
      body: { receipt: "a.b.c", bundleId: "com.studyservice.app", environment: "Sandbox" },
    });
    expect([confirm.status, confirm.body.code]).toEqual([400, "STORE_VERIFICATION_FAILED"]);
    expect((await api("POST", "/api/store/confirm", { body: { receipt: "a.b.c", bundleId: "x", environment: "Sandbox" } })).status).toBe(401);
  });
});
