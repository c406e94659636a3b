import { billing as api } from "@study/contracts";
import { bindUnaryHandlers } from "@study/grpc";
import type { Logger } from "@study/platform";
import { AppError } from "@study/platform/errors";
import type { GetAccountCredits } from "../../application/get-account-credits";
import type { GetEntitlement } from "../../application/get-entitlement";
import type { GetReferralDashboard } from "../../application/get-referral-dashboard";
import type { Subscription } from "../../application/ports/billing-store.port";
import type { ReceiveProcessorWebhook } from "../../application/processor-webhooks";
import type { ProcessReward } from "../../application/process-reward";
import type { RequestWithdrawal } from "../../application/request-withdrawal";
import type { SignUpWithCode } from "../../application/sign-up-with-code";
import type { StartTrial } from "../../application/start-trial";
import { appAccountTokenOf, type ConfirmStorePurchase, type HandleStoreNotification } from "../../application/store-purchases";
import type { CreateCheckoutSession, CreatePortalSession, GetSubscription } from "../../application/subscriptions";
import type { Entitlement } from "../../domain/entitlement";
import type { ReferralStatus, Reward, RewardType } from "../../domain/referral";
import type { Withdrawal } from "../../domain/withdrawal";

export interface BillingUseCases {
  getReferralDashboard: GetReferralDashboard;
  signUpWithCode: SignUpWithCode;
  startTrial: StartTrial;
  processReward: ProcessReward;
  requestWithdrawal: RequestWithdrawal;
  getAccountCredits: GetAccountCredits;
  createCheckoutSession: CreateCheckoutSession;
  createPortalSession: CreatePortalSession;
  getSubscription: GetSubscription;
  getEntitlement: GetEntitlement;
  receiveProcessorWebhook: ReceiveProcessorWebhook;
  handleStoreNotification: HandleStoreNotification;
  confirmStorePurchase: ConfirmStorePurchase;
}

const REFERRAL_STATUS: Record<ReferralStatus, api.ReferralStatus> = {
  PENDING: api.ReferralStatus.REFERRAL_STATUS_PENDING,
  TRIAL_STARTED: api.ReferralStatus.REFERRAL_STATUS_TRIAL_STARTED,
  COMPLETED: api.ReferralStatus.REFERRAL_STATUS_COMPLETED,
  EXPIRED: api.ReferralStatus.REFERRAL_STATUS_EXPIRED,
  CANCELLED: api.ReferralStatus.REFERRAL_STATUS_CANCELLED,
};

const REWARD_STATUS: Record<Reward["status"], api.RewardStatus> = {
  PENDING: api.RewardStatus.REWARD_STATUS_PENDING,
  PROCESSING: api.RewardStatus.REWARD_STATUS_PROCESSING,
  COMPLETED: api.RewardStatus.REWARD_STATUS_COMPLETED,
  FAILED: api.RewardStatus.REWARD_STATUS_FAILED,
  EXPIRED: api.RewardStatus.REWARD_STATUS_EXPIRED,
};

const WITHDRAWAL_STATUS: Record<Withdrawal["status"], api.WithdrawalStatus> = {
  PROCESSING: api.WithdrawalStatus.WITHDRAWAL_STATUS_PROCESSING,
  COMPLETED: api.WithdrawalStatus.WITHDRAWAL_STATUS_COMPLETED,
  FAILED: api.WithdrawalStatus.WITHDRAWAL_STATUS_FAILED,
};

const rewardTypeToProto = (type: RewardType) => (type === "CASH" ? api.RewardType.REWARD_TYPE_CASH : api.RewardType.REWARD_TYPE_FREE_MONTH);

function rewardTypeFromProto(type: api.RewardType): RewardType {
  if (type === api.RewardType.REWARD_TYPE_CASH) return "CASH";
  if (type === api.RewardType.REWARD_TYPE_FREE_MONTH) return "FREE_MONTH";
  throw AppError.validation("type must be CASH or FREE_MONTH", [{ field: "type", message: "must be CASH or FREE_MONTH" }]);
}

export function toProtoReward(reward: Reward): api.Reward {
  return {
    id: reward.id,
    referralId: reward.referralId,
    rewardType: rewardTypeToProto(reward.rewardType),
    cashAmountCents: reward.cashAmountCents ?? undefined,
    freeMonths: reward.freeMonths ?? undefined,
    userId: reward.userId,
    status: REWARD_STATUS[reward.status],
    claimedAt: reward.claimedAt ?? undefined,
    expiresAt: reward.expiresAt ?? undefined,
    subscriptionExtension: reward.subscriptionExtension ?? undefined,
    createdAt: reward.createdAt,
    pendingReason: reward.pendingReason ?? undefined,
  };
}

export function toProtoWithdrawal(withdrawal: Withdrawal): api.Withdrawal {
  return {
    id: withdrawal.id,
    amountCents: withdrawal.amountCents,
    status: WITHDRAWAL_STATUS[withdrawal.status],
    processorPaymentId: withdrawal.processorPaymentId ?? undefined,
    requestedAt: withdrawal.requestedAt,
    completedAt: withdrawal.completedAt ?? undefined,
    failureReason: withdrawal.failureReason ?? undefined,
  };
}

function toProtoEntitlement(entitlement: Entitlement): api.Entitlement {
  return {
    isPro: entitlement.isPro,
    source: entitlement.source,
    plan: entitlement.plan ?? undefined,
    expiresAt: entitlement.expiresAt ?? undefined,
    inGrace: entitlement.inGrace,
  };
}

function toProtoSubscription(subscription: Subscription): api.Subscription {
  return {
    ...subscription,
    periodStart: subscription.periodStart ?? undefined,
    periodEnd: subscription.periodEnd ?? undefined,
    trialStart: subscription.trialStart ?? undefined,
    trialEnd: subscription.trialEnd ?? undefined,
  };
}

export function billingGrpcService(useCases: BillingUseCases, logger: Logger): api.BillingServiceServer {
  return bindUnaryHandlers(logger, api.BillingServiceService, {
    getReferralDashboard: async (request) => {
      const dashboard = await useCases.getReferralDashboard.execute(request.userId);
      return {
        totalEarnedCents: dashboard.totalEarnedCents,
        earnedThisWeekCents: dashboard.earnedThisWeekCents,
        pendingAmountCents: dashboard.pendingAmountCents,
        leaderboard: dashboard.leaderboard,
        totalReferrals: dashboard.totalReferrals,
        goal: dashboard.goal,
        activeTrials: dashboard.activeTrials,
        pending: dashboard.pending,
        recentReferrals: dashboard.recentReferrals.map((referral) => ({
          ...referral,
          status: REFERRAL_STATUS[referral.status],
          pendingReason: referral.pendingReason ?? undefined,
        })),
        referralCode: dashboard.referralCode,
        accountCreditCents: dashboard.accountCreditCents,
        rewardsBreakdownUser: dashboard.rewardsBreakdown.user,
        rewardsBreakdownFriend: dashboard.rewardsBreakdown.friend,
        howItWorks: dashboard.howItWorks,
      };
    },
    signUpWithCode: async (request) => {
      const referral = await useCases.signUpWithCode.execute(request.userId, request.code, request.emailVerified);
      return {
        referralId: referral.id,
        referrerId: referral.referrerId,
        refereeId: referral.refereeId,
        status: REFERRAL_STATUS[referral.status],
        signupDate: referral.signupDate,
      };
    },
    startTrial: async (request) => {
      const { referral, rewards } = await useCases.startTrial.execute(request.userId, request.emailVerified);
      return { referralId: referral.id, rewards: rewards.map(toProtoReward) };
    },
    processReward: async (request) => {
      const processed = await useCases.processReward.execute(request.userId, request.rewardId, rewardTypeFromProto(request.rewardType));
      return { reward: toProtoReward(processed.reward), message: processed.message, accountCreditCents: processed.accountCreditCents };
    },
    requestWithdrawal: async (request) => {
      const { withdrawal, accountCreditCents } = await useCases.requestWithdrawal.execute(request.userId, request.amountCents);
      return { withdrawal: toProtoWithdrawal(withdrawal), accountCreditCents };
    },
    getAccountCredits: async (request) => {
      const credits = await useCases.getAccountCredits.execute(request.userId);
      return {
        accountCreditCents: credits.accountCreditCents,
        withdrawals: credits.withdrawals.map(toProtoWithdrawal),
        pendingRewards: credits.pendingRewards.map((reward) => ({
          id: reward.id,
          amountCents: reward.cashAmountCents ?? 0,
          createdAt: reward.createdAt,
          pendingReason: reward.pendingReason ?? undefined,
        })),
        processorCustomerId: credits.processorCustomerId ?? undefined,
      };
    },
    createCheckoutSession: (request) =>
      useCases.createCheckoutSession.execute(request.userId, {
        plan: request.plan,
        successUrl: request.successUrl,
        cancelUrl: request.cancelUrl,
        trial: request.trial,
      }),
    createPortalSession: (request) => useCases.createPortalSession.execute(request.userId, request.returnUrl),
    getSubscription: async (request) => {
      const subscription = await useCases.getSubscription.execute(request.userId);
      return { subscription: subscription ? toProtoSubscription(subscription) : undefined };
    },
    getEntitlement: async (request) => ({
      entitlement: toProtoEntitlement(await useCases.getEntitlement.execute(request.userId)),
      appAccountToken: appAccountTokenOf(request.userId),
    }),
    handleProcessorWebhook: (request) => useCases.receiveProcessorWebhook.execute(request.payload, request.signature),
    handleStoreNotification: (request) => useCases.handleStoreNotification.execute(request.signedPayload),
    confirmStorePurchase: async (request) => {
      const entitlement = await useCases.confirmStorePurchase.execute(request.userId, {
        receipt: request.receipt,
        bundleId: request.bundleId,
        environment: request.environment,
        productId: request.productId,
      });
      return { isPro: entitlement.isPro, entitlement: toProtoEntitlement(entitlement) };
    },
  });
}
