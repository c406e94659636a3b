import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { Entitlement } from "../domain/entitlement";
import type { Referral, Reward } from "../domain/referral";
import type { Withdrawal } from "../domain/withdrawal";

export const SOURCE = "billing";

export const referralCodeUsed = (referral: Referral, refereeName: string): EventEnvelope =>
  createEvent(SOURCE, referral.referrerId, {
    $case: "referralCodeUsed",
    value: { referralId: referral.id, referrerId: referral.referrerId, refereeId: referral.refereeId, refereeName },
  });

export const referralTrialStarted = (
  referral: Referral,
  names: { referee: string; referrer: string },
  cash: Reward,
  freeMonth: Reward,
): EventEnvelope =>
  createEvent(SOURCE, referral.refereeId, {
    $case: "referralTrialStarted",
    value: {
      referralId: referral.id,
      referrerId: referral.referrerId,
      refereeId: referral.refereeId,
      refereeName: names.referee,
      referrerName: names.referrer,
      referrerCashCents: cash.cashAmountCents ?? 0,
      refereeFreeMonths: freeMonth.freeMonths ?? 0,
    },
  });

export const rewardProcessed = (reward: Reward, accountCreditCents: number, extendedUntil: Date | null): EventEnvelope =>
  createEvent(SOURCE, reward.userId, {
    $case: "rewardProcessed",
    value: {
      rewardId: reward.id,
      referralId: reward.referralId,
      rewardType: reward.rewardType,
      cashAmountCents: reward.cashAmountCents ?? 0,
      freeMonths: reward.freeMonths ?? 0,
      subscriptionExtension: reward.subscriptionExtension ?? undefined,
      extendedUntil: extendedUntil ?? undefined,
      accountCreditCents,
    },
  });

export const withdrawalRequested = (withdrawal: Withdrawal): EventEnvelope =>
  createEvent(SOURCE, withdrawal.userId, {
    $case: "withdrawalRequested",
    value: { withdrawalId: withdrawal.id, amountCents: withdrawal.amountCents },
  });

export const withdrawalStatusChanged = (withdrawal: Withdrawal, accountCreditCents: number): EventEnvelope =>
  createEvent(SOURCE, withdrawal.userId, {
    $case: "withdrawalStatusChanged",
    value: {
      withdrawalId: withdrawal.id,
      amountCents: withdrawal.amountCents,
      status: withdrawal.status,
      processorPaymentId: withdrawal.processorPaymentId ?? undefined,
      failureReason: withdrawal.failureReason ?? undefined,
      accountCreditCents,
    },
  });

export const entitlementChanged = (userId: string, entitlement: Entitlement): EventEnvelope =>
  createEvent(SOURCE, userId, {
    $case: "entitlementChanged",
    value: {
      isPro: entitlement.isPro,
      source: entitlement.source,
      plan: entitlement.plan ?? undefined,
      expiresAt: entitlement.expiresAt ?? undefined,
      inGrace: entitlement.inGrace,
    },
  });
