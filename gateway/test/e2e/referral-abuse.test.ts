import { eventually, httpClient, requireStatus, sharedTestStack, uniqueSuffix, type SharedStack, type SignedUpUser } from "@study/testkit";
import { subscribeThroughStripe, verifyEmail } from "./referral-helpers";

interface Reward {
  id: string;
  rewardType: "CASH" | "FREE_MONTH";
  status: string;
  userId: string;
  pendingReason: string | null;
}

/**
 * Issue #29, "Referral farming pays out real money", through the gateway: three throw-away sign-ups with one code
 * and trial-start without any subscription earn the referrer nothing to withdraw; an honest referral (verified
 * e-mail, a real trial through Stripe Checkout, the first payment when it ends) becomes withdrawable; a second
 * account paying with the referrer's card is no referral.
 */
describe("referral abuse (#29) end to end", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;

  beforeAll(() => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
  });

  /** A registered user whose billing account and code exist (billing makes them from the registration event). */
  async function user(name: string): Promise<SignedUpUser & { code: string }> {
    const email = `${name.toLowerCase().replace(/\W+/g, ".")}-${uniqueSuffix()}@example.com`;
    const response = requireStatus(
      await api("POST", "/api/auth/signup", { body: { name, email, password: "correct horse battery" } }),
      200,
      "sign-up",
    );
    const signedUp = { email, token: response.body.session.token as string, cookie: "", userId: response.body.user.id as string };
    const code = await eventually(async () => {
      const dashboard = await api("GET", "/api/referral/dashboard", { token: signedUp.token });
      return dashboard.status === 200 && dashboard.body.data.referralCode ? (dashboard.body.data.referralCode as string) : undefined;
    }, 20_000);
    return { ...signedUp, code };
  }

  const standIn = (path: string) =>
    fetch(`${stack.stripeUrl}/_standin${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  const dashboardOf = async (owner: SignedUpUser) => (await api("GET", "/api/referral/dashboard", { token: owner.token })).body.data;
  const creditsOf = async (owner: SignedUpUser) => (await api("GET", "/api/referral/account-credits", { token: owner.token })).body.data;

  it("pays nothing for three throw-away sign-ups that call trial-start without a subscription", async () => {
    const farmer = await user("Mallory Farmer");
    for (const name of ["Throw Away", "Throw Away", "Throw Away"]) {
      const fake = await user(name);
      // Throw-away addresses are never verified: the code is refused.
      const signup = await api("POST", "/api/referral/signup", { token: fake.token, body: { code: farmer.code } });
      expect([signup.status, signup.body]).toEqual([
        400,
        expect.objectContaining({ success: false, code: "EMAIL_NOT_VERIFIED", action: "VERIFY_EMAIL", error: expect.any(String) }),
      ]);
      // Even a verified one cannot start a trial it does not have.
      await verifyEmail(stack, fake.userId);
      expect((await api("POST", "/api/referral/signup", { token: fake.token, body: { code: farmer.code } })).status).toBe(200);
      const trial = await api("POST", "/api/referral/trial-start", { token: fake.token });
      expect([trial.status, trial.body]).toEqual([
        400,
        expect.objectContaining({ success: false, code: "NO_SUBSCRIPTION", action: "SUBSCRIBE", error: expect.any(String) }),
      ]);
    }
    expect(await dashboardOf(farmer)).toMatchObject({
      pendingAmount: 0,
      totalEarned: 0,
      accountCredit: 0,
      referralProgress: { totalReferrals: 3, activeTrials: 0, pending: 3 },
    });
    expect(await creditsOf(farmer)).toMatchObject({ accountCredit: 0, pendingRewards: [] });
    const withdrawal = await api("POST", "/api/referral/withdraw", { token: farmer.token, body: { amount: 10 } });
    expect([withdrawal.status, withdrawal.body.code]).toEqual([400, "INSUFFICIENT_CREDIT"]);
  });

  it("makes an honest referral withdrawable once the friend's first payment succeeds after a real trial", async () => {
    const grace = await user("Grace Hopper");
    const ada = await user("Ada Lovelace");
    await verifyEmail(stack, ada.userId);
    expect((await api("POST", "/api/referral/signup", { token: ada.token, body: { code: grace.code } })).status).toBe(200);
    // A real trial through Stripe Checkout: nothing is charged yet.
    const trialing = await subscribeThroughStripe(api, ada.token, { trial: true });
    const trial = requireStatus(await api("POST", "/api/referral/trial-start", { token: ada.token }), 200, "trial-start");
    const cash = (trial.body.data.rewards as Reward[]).find((reward) => reward.rewardType === "CASH");
    expect(cash).toMatchObject({ status: "PENDING", userId: grace.userId, pendingReason: "AWAITING_FIRST_PAYMENT" });

    // Grace sees why the reward is not payable yet, and cannot process it.
    const waiting = await dashboardOf(grace);
    expect(waiting).toMatchObject({ pendingAmount: 5, accountCredit: 0 });
    expect(waiting.referralProgress.recentReferrals).toEqual([
      expect.objectContaining({ name: "Ada L.", status: "TRIAL_STARTED", amount: 5, pending: true, pendingReason: "AWAITING_FIRST_PAYMENT" }),
    ]);
    expect((await creditsOf(grace)).pendingRewards).toEqual([expect.objectContaining({ id: cash?.id, pendingReason: "AWAITING_FIRST_PAYMENT" })]);
    const early = await api("POST", "/api/referral/process-reward", { token: grace.token, body: { rewardId: cash?.id, type: "CASH" } });
    expect([early.status, early.body.code]).toEqual([400, "AWAITING_FIRST_PAYMENT"]);

    // The trial ends and Stripe charges the first month (invoice.paid): the reward becomes payable.
    expect((await standIn(`/subscriptions/${trialing.processorSubscriptionId}/renew`)).status).toBe(200);
    await eventually(async () => ((await dashboardOf(grace)).referralProgress.recentReferrals[0]?.pendingReason === null ? true : undefined), 20_000);
    expect((await api("POST", "/api/referral/process-reward", { token: grace.token, body: { rewardId: cash?.id, type: "CASH" } })).status).toBe(200);

    // A second friend pays at once: the 10.00 are withdrawable, and the payout goes out.
    const alan = await user("Alan Turing");
    await verifyEmail(stack, alan.userId);
    expect((await api("POST", "/api/referral/signup", { token: alan.token, body: { code: grace.code } })).status).toBe(200);
    await subscribeThroughStripe(api, alan.token);
    const second = requireStatus(await api("POST", "/api/referral/trial-start", { token: alan.token }), 200, "trial-start");
    const secondCash = (second.body.data.rewards as Reward[]).find((reward) => reward.rewardType === "CASH");
    const processed = await eventually(async () => {
      const answer = await api("POST", "/api/referral/process-reward", { token: grace.token, body: { rewardId: secondCash?.id, type: "CASH" } });
      // AWAITING_FIRST_PAYMENT until billing has applied Alan's invoice.paid; any other answer ends the wait.
      return answer.body.code === "AWAITING_FIRST_PAYMENT" ? undefined : answer;
    }, 20_000);
    expect(processed.status).toBe(200);
    const withdrawal = await api("POST", "/api/referral/withdraw", { token: grace.token, body: { amount: 10 } });
    expect(withdrawal.status).toBe(200);
    expect(withdrawal.body.data).toMatchObject({ amount: 10, status: "PROCESSING", processorPaymentId: expect.stringMatching(/^po_/) });
  });

  it("refuses a second account that pays with the referrer's own card (the same Stripe card fingerprint)", async () => {
    const mallory = await user("Mallory Main");
    await subscribeThroughStripe(api, mallory.token, { card: "5555555555554444" });
    const second = await user("Mallory Second");
    await verifyEmail(stack, second.userId);
    expect((await api("POST", "/api/referral/signup", { token: second.token, body: { code: mallory.code } })).status).toBe(200);
    await subscribeThroughStripe(api, second.token, { trial: true, card: "5555555555554444" });
    const trial = await api("POST", "/api/referral/trial-start", { token: second.token });
    expect([trial.status, trial.body.code]).toEqual([400, "SELF_REFERRAL"]);
    expect((await dashboardOf(mallory)).pendingAmount).toBe(0);
  });
});
