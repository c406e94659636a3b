import { formatCents } from "@study/platform/money";
import type { billing as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { sendData } from "../http/envelope";
import { amountSchema, centsToAmount, referralStatus, rewardStatus, rewardType, stripeError, withdrawalStatus } from "./billing";
import { iso, isoOrNull } from "./shared/mappers";

const money = (what: string) => z.number().describe(`${what}, in currency units (two decimals at most)`);
const nullableDate = z.iso.datetime().nullable();
const pendingReason = z
  .string()
  .nullable()
  .describe(
    "Why a PENDING reward cannot be processed yet: `AWAITING_FIRST_PAYMENT` (a cash reward becomes payable once the referred friend's " +
      "first payment succeeds); null when it can be processed",
  );

const rewardSchema = z
  .object({
    id: z.string(),
    referralId: z.string(),
    rewardType: z.enum(rewardType.names),
    cashAmount: money("The cash of a CASH reward").optional(),
    freeMonths: z.number().int().optional().describe("The months of a FREE_MONTH reward"),
    status: z.enum(rewardStatus.names),
    userId: z.string().describe("The recipient"),
    claimedAt: nullableDate.describe("When it was processed"),
    expiresAt: nullableDate.describe("A PENDING reward not processed by then expires"),
    subscriptionExtension: z
      .string()
      .nullable()
      .describe("What a processed FREE_MONTH extended, e.g. `stripe:sub_123 until 2026-12-24T10:00:00.000Z`"),
    pendingReason,
    createdAt: z.iso.datetime(),
  })
  .meta({ id: "ReferralReward" });

export function rewardJson(reward: api.Reward) {
  return {
    id: reward.id,
    referralId: reward.referralId,
    rewardType: rewardType.toRest(reward.rewardType),
    ...(reward.cashAmountCents === undefined ? {} : { cashAmount: centsToAmount(reward.cashAmountCents) }),
    ...(reward.freeMonths === undefined ? {} : { freeMonths: reward.freeMonths }),
    status: rewardStatus.toRest(reward.status),
    userId: reward.userId,
    claimedAt: isoOrNull(reward.claimedAt),
    expiresAt: isoOrNull(reward.expiresAt),
    subscriptionExtension: reward.subscriptionExtension ?? null,
    pendingReason: reward.pendingReason ?? null,
    createdAt: iso(reward.createdAt, "Reward.createdAt"),
  };
}

const withdrawalSchema = z
  .object({
    id: z.string(),
    amount: money("The amount paid out"),
    status: z.enum(withdrawalStatus.names).describe("PROCESSING until the processor confirms the payout (COMPLETED) or reports its failure (FAILED)"),
    requestedAt: z.iso.datetime(),
    completedAt: nullableDate,
    failureReason: z.string().nullable().describe("Why a FAILED payout failed (its amount is back in the account credit)"),
    processorPaymentId: z.string().nullable().describe("The processor's payout id; null while not known"),
  })
  .meta({ id: "Withdrawal" });

export function withdrawalJson(withdrawal: api.Withdrawal) {
  return {
    id: withdrawal.id,
    amount: centsToAmount(withdrawal.amountCents),
    status: withdrawalStatus.toRest(withdrawal.status),
    requestedAt: iso(withdrawal.requestedAt, "Withdrawal.requestedAt"),
    completedAt: isoOrNull(withdrawal.completedAt),
    failureReason: withdrawal.failureReason ?? null,
    processorPaymentId: withdrawal.processorPaymentId ?? null,
  };
}

const dashboardSchema = z
  .object({
    totalEarned: money("Cash rewards credited so far"),
    earnedThisWeek: money("Of which in the last 7 days"),
    pendingAmount: money("Cash rewards not processed yet"),
    leaderboard: z
      .array(z.object({ name: z.string().describe('Shortened for privacy: first name and last initial ("Ada L.")'), amount: money("Earned") }))
      .describe("The top referrers by cash earned"),
    referralProgress: z.object({
      totalReferrals: z.number().int(),
      goal: z.number().int().describe("Referrals to aim for"),
      activeTrials: z.number().int(),
      pending: z.number().int().describe("Referrals whose trial has not started"),
      recentReferrals: z.array(
        z.object({
          initials: z.string().describe('The friend\'s initials ("AL")'),
          name: z.string().describe("Shortened for privacy"),
          status: z.enum(referralStatus.names),
          date: z.iso.datetime().describe("Sign-up date"),
          amount: money("The caller's cash reward for it (0 before the trial starts)"),
          pending: z.boolean().describe("That reward is not processed yet"),
          pendingReason,
        }),
      ),
    }),
    referralCode: z.string().describe("The caller's code to share (empty until it is made, right after registration)"),
    accountCredit: money("Credit available to withdraw"),
    rewardsBreakdown: z.object({ user: z.string().describe("What the caller gets"), friend: z.string().describe("What the friend gets") }),
    howItWorks: z.array(z.string()),
  })
  .meta({ id: "ReferralDashboard" });

export function dashboardJson(dashboard: api.GetReferralDashboardResponse) {
  return {
    totalEarned: centsToAmount(dashboard.totalEarnedCents),
    earnedThisWeek: centsToAmount(dashboard.earnedThisWeekCents),
    pendingAmount: centsToAmount(dashboard.pendingAmountCents),
    leaderboard: dashboard.leaderboard.map((entry) => ({ name: entry.name, amount: centsToAmount(entry.amountCents) })),
    referralProgress: {
      totalReferrals: dashboard.totalReferrals,
      goal: dashboard.goal,
      activeTrials: dashboard.activeTrials,
      pending: dashboard.pending,
      recentReferrals: dashboard.recentReferrals.map((referral) => ({
        initials: referral.initials,
        name: referral.name,
        status: referralStatus.toRest(referral.status),
        date: iso(referral.date, "RecentReferral.date"),
        amount: centsToAmount(referral.amountCents),
        pending: referral.pending,
        pendingReason: referral.pendingReason ?? null,
      })),
    },
    referralCode: dashboard.referralCode,
    accountCredit: centsToAmount(dashboard.accountCreditCents),
    rewardsBreakdown: { user: dashboard.rewardsBreakdownUser, friend: dashboard.rewardsBreakdownFriend },
    howItWorks: dashboard.howItWorks,
  };
}

/** The sentence of a withdrawal's answer, from its status. */
export function withdrawalMessage(withdrawal: api.Withdrawal): string {
  const amount = formatCents(withdrawal.amountCents);
  switch (withdrawalStatus.toRest(withdrawal.status)) {
    case "PROCESSING":
      return `Withdrawal of ${amount} is being processed`;
    case "COMPLETED":
      return `Withdrawal of ${amount} completed`;
    case "FAILED":
      return `Withdrawal of ${amount} failed${withdrawal.failureReason ? `: ${withdrawal.failureReason}` : ""}; the amount is back in your credit`;
  }
}

const signupBody = z.strictObject({ code: z.string().trim().min(1, "is required").max(64).describe("Another user's referral code") });
const processRewardBody = z.strictObject({
  rewardId: z.string().trim().min(1, "is required").max(100),
  type: z.enum(rewardType.names).describe("The reward's type (a mismatch is refused with VALIDATION_ERROR)"),
});
const withdrawBody = z.strictObject({
  amount: amountSchema.describe("In currency units, at most two decimals; the minimum is 10 (else 400 MIN_AMOUNT)"),
});

const tag = "Referral";

/** The spec's referral program: codes, referrals, rewards, the account credit and its withdrawal. */
export function referralRoutes(clients: ServiceClients): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/api/referral/dashboard",
      tag,
      summary: "The caller's referral dashboard: earnings, leaderboard, progress, code, credit",
      auth: true,
      responses: { 200: { description: "The dashboard (amounts in currency units)", schema: dataEnvelope(dashboardSchema) } },
      async handler({ userId, res }) {
        const dashboard = await clients.billing.getReferralDashboard({ userId });
        sendData(res, 200, dashboardJson(dashboard), "Referral dashboard retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/referral/signup",
      tag,
      summary: "Sign up with another user's referral code: a PENDING referral",
      auth: true,
      body: signupBody,
      responses: {
        200: {
          description: "The referral",
          schema: dataEnvelope(
            z.object({
              referralId: z.string(),
              referrerId: z.string(),
              refereeId: z.string().describe("The caller"),
              status: z.enum(referralStatus.names),
              signupDate: z.iso.datetime(),
            }),
          ),
        },
        400: {
          description:
            "Invalid input (VALIDATION_ERROR), an unknown, inactive or exhausted code (INVALID_CODE), the caller's own code " +
            "(SELF_REFERRAL), the caller already has a referral (DUPLICATE_REFERRAL), the caller's e-mail is not verified " +
            "(EMAIL_NOT_VERIFIED, action VERIFY_EMAIL), or the code's owner reached the sign-ups allowed per period " +
            "(REFERRAL_LIMIT_REACHED, action RETRY_LATER)",
          schema: errorEnvelope,
        },
      },
      async handler({ userId, user, body, res }) {
        const referral = await clients.billing.signUpWithCode({ userId, code: body.code, emailVerified: user.emailVerified });
        sendData(
          res,
          200,
          {
            referralId: referral.referralId,
            referrerId: referral.referrerId,
            refereeId: referral.refereeId,
            status: referralStatus.toRest(referral.status),
            signupDate: iso(referral.signupDate, "SignUpWithCodeResponse.signupDate"),
          },
          "Referral code applied",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/referral/trial-start",
      tag,
      summary: "The caller (a referred user) starts a trial: a CASH reward for the referrer and a FREE_MONTH for the caller, both PENDING",
      description:
        "The trial must be real: billing's own records (Stripe's webhooks, verified App Store purchases) show a trialing or paid " +
        "subscription of the caller — start it with POST /api/billing/checkout or the App Store first. The referrer's CASH reward " +
        "stays PENDING with `pendingReason: AWAITING_FIRST_PAYMENT` until the caller's first payment succeeds.",
      auth: true,
      responses: {
        200: {
          description: "The referral and its two rewards",
          schema: dataEnvelope(z.object({ referralId: z.string(), rewards: z.array(rewardSchema) })),
        },
        400: {
          description:
            "The caller has no PENDING referral (NO_REFERRAL), no trialing or paid subscription (NO_SUBSCRIPTION, action SUBSCRIBE), " +
            "an unverified e-mail (EMAIL_NOT_VERIFIED), pays with the referrer's card or payment account (SELF_REFERRAL), or the " +
            "referrer reached the rewards allowed per period (REFERRAL_LIMIT_REACHED)",
          schema: errorEnvelope,
        },
      },
      async handler({ userId, user, res }) {
        const trial = await clients.billing.startTrial({ userId, emailVerified: user.emailVerified });
        sendData(res, 200, { referralId: trial.referralId, rewards: trial.rewards.map(rewardJson) }, "Trial started");
      },
    }),
    route({
      method: "post",
      path: "/api/referral/process-reward",
      tag,
      summary: "Process one of the caller's PENDING rewards: CASH is credited, FREE_MONTH extends the active subscription by 30 days",
      description: "The spec's answer is {success, message}; `data` (the reward and the account credit after it) is an addition.",
      auth: true,
      body: processRewardBody,
      responses: {
        200: {
          description: "Processed",
          schema: dataEnvelope(z.object({ reward: rewardSchema, accountCredit: money("The account credit after it") })),
        },
        400: {
          description:
            "Invalid input or a type that is not the reward's (VALIDATION_ERROR), no such reward of the caller (NOT_FOUND, 400 as " +
            "the spec says), the reward is not PENDING (NOT_PENDING), a FREE_MONTH without an active subscription (NO_SUBSCRIPTION), " +
            "a CASH reward whose referred friend has not paid yet (AWAITING_FIRST_PAYMENT)",
          schema: errorEnvelope,
        },
        502: stripeError,
      },
      async handler({ userId, body, res }) {
        const processed = await clients.billing.processReward({
          userId,
          rewardId: body.rewardId,
          rewardType: rewardType.toProto(body.type),
        });
        const reward = rewardJson(required(processed.reward, "reward in ProcessReward reply"));
        sendData(res, 200, { reward, accountCredit: centsToAmount(processed.accountCreditCents) }, processed.message || "Reward processed");
      },
    }),
    route({
      method: "post",
      path: "/api/referral/withdraw",
      tag,
      summary: "Withdraw account credit: the amount is reserved at once and paid out through the payment processor",
      description:
        "The withdrawal is PROCESSING until the processor confirms the payout (COMPLETED) or reports its failure (FAILED, the " +
        "amount returns to the credit); GET /api/referral/account-credits and the notifications follow it. `accountCredit` (the " +
        "credit after the reservation) is an addition to the spec's answer.",
      auth: true,
      body: withdrawBody,
      responses: {
        200: {
          description: "The withdrawal",
          schema: dataEnvelope(
            z.object({
              withdrawalId: z.string(),
              amount: money("The amount"),
              status: z.enum(withdrawalStatus.names),
              processorPaymentId: z.string().nullable().describe("The processor's payout id; null while not known"),
              accountCredit: money("The credit left"),
            }),
          ),
        },
        400: {
          description:
            "Invalid input: not a number, negative or more than two decimals (VALIDATION_ERROR); below the minimum of 10 " +
            "(MIN_AMOUNT); more than the credit (INSUFFICIENT_CREDIT); no payment-processor customer yet (PROCESSING_FAILED)",
          schema: errorEnvelope,
        },
        502: stripeError,
      },
      async handler({ userId, body, res }) {
        const reply = await clients.billing.requestWithdrawal({ userId, amountCents: body.amount });
        const withdrawal = required(reply.withdrawal, "withdrawal in RequestWithdrawal reply");
        sendData(
          res,
          200,
          {
            withdrawalId: withdrawal.id,
            amount: centsToAmount(withdrawal.amountCents),
            status: withdrawalStatus.toRest(withdrawal.status),
            processorPaymentId: withdrawal.processorPaymentId ?? null,
            accountCredit: centsToAmount(reply.accountCreditCents),
          },
          withdrawalMessage(withdrawal),
        );
      },
    }),
    route({
      method: "get",
      path: "/api/referral/account-credits",
      tag,
      summary: "The caller's account credit, withdrawals (newest first) and cash rewards still pending",
      auth: true,
      responses: {
        200: {
          description: "The credit",
          schema: dataEnvelope(
            z.object({
              accountCredit: money("Credit available to withdraw"),
              withdrawals: z.array(withdrawalSchema),
              pendingRewards: z.array(z.object({ id: z.string(), amount: money("The cash"), createdAt: z.iso.datetime(), pendingReason })),
            }),
          ),
        },
      },
      async handler({ userId, res }) {
        const credits = await clients.billing.getAccountCredits({ userId });
        sendData(
          res,
          200,
          {
            accountCredit: centsToAmount(credits.accountCreditCents),
            withdrawals: credits.withdrawals.map(withdrawalJson),
            pendingRewards: credits.pendingRewards.map((reward) => ({
              id: reward.id,
              amount: centsToAmount(reward.amountCents),
              createdAt: iso(reward.createdAt, "PendingReward.createdAt"),
              pendingReason: reward.pendingReason ?? null,
            })),
          },
          "Account credits retrieved",
        );
      },
    }),
  ];
}
