import { AppError } from "@study/platform/errors";
import { CASH_REWARD_CENTS, FREE_MONTHS_PER_REWARD, type Cents } from "./money";

export type ReferralStatus = "PENDING" | "TRIAL_STARTED" | "COMPLETED" | "EXPIRED" | "CANCELLED";
export type RewardType = "CASH" | "FREE_MONTH";
export type RewardStatus = "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED" | "EXPIRED";

export interface ReferralCode {
  id: string;
  code: string;
  userId: string;
  isActive: boolean;
  usageCount: number;
  maxUsage: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface Referral {
  id: string;
  referrerId: string;
  refereeId: string;
  referralCodeId: string;
  status: ReferralStatus;
  signupDate: Date;
  trialStartDate: Date | null;
  rewardClaimedDate: Date | null;
}

export interface Reward {
  id: string;
  referralId: string;
  rewardType: RewardType;
  cashAmountCents: Cents | null;
  freeMonths: number | null;
  userId: string;
  status: RewardStatus;
  claimedAt: Date | null;
  expiresAt: Date | null;
  subscriptionExtension: string | null;
  createdAt: Date;
}

/** Codes are 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L), read case-insensitively. */
export const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const CODE_LENGTH = 8;

/** A code from CODE_LENGTH random numbers (each reduced to the alphabet; the caller draws them uniformly). */
export function referralCodeFrom(randomIndexes: readonly number[]): string {
  if (randomIndexes.length !== CODE_LENGTH) throw AppError.internal(`A referral code needs ${CODE_LENGTH} random numbers`);
  return randomIndexes.map((index) => CODE_ALPHABET[index % CODE_ALPHABET.length]).join("");
}

/** What a user typed, as codes are stored: trimmed, upper case, without spaces or dashes. */
export function normalizeCode(typed: string): string {
  return typed.replace(/[\s-]+/gu, "").toUpperCase();
}

/**
 * A signup with a code (the spec's transition "(none) → referral PENDING"): the code must exist, be active and
 * not exhausted (INVALID_CODE), not be the referee's own (SELF_REFERRAL), and the referee must not be referred
 * already (DUPLICATE_REFERRAL).
 */
export function assertCanSignUp(code: ReferralCode | null, refereeId: string, existingReferral: Referral | null): ReferralCode {
  if (!code || !code.isActive || (code.maxUsage !== null && code.usageCount >= code.maxUsage)) {
    throw new AppError("precondition", "INVALID_CODE", "This referral code is not valid");
  }
  if (code.userId === refereeId) throw new AppError("precondition", "SELF_REFERRAL", "You cannot use your own referral code");
  if (existingReferral) throw new AppError("precondition", "DUPLICATE_REFERRAL", "You have already signed up with a referral code");
  return code;
}

export function newReferral(id: string, code: ReferralCode, refereeId: string, now: Date): Referral {
  return {
    id,
    referrerId: code.userId,
    refereeId,
    referralCodeId: code.id,
    status: "PENDING",
    signupDate: now,
    trialStartDate: null,
    rewardClaimedDate: null,
  };
}

/**
 * The referee starts a trial: the referral moves to TRIAL_STARTED and two PENDING rewards are made, CASH for the
 * referrer and FREE_MONTH for the referee. NO_REFERRAL without a PENDING referral.
 */
export function startTrial(
  referral: Referral | null,
  rewardIds: { cash: string; freeMonth: string },
  now: Date,
  rewardValidityDays: number,
): { referral: Referral; rewards: [Reward, Reward] } {
  if (!referral || referral.status !== "PENDING") {
    throw new AppError("precondition", "NO_REFERRAL", "You have no pending referral to start a trial for");
  }
  const expiresAt = new Date(now.getTime() + rewardValidityDays * 86_400_000);
  const base = { referralId: referral.id, status: "PENDING" as const, claimedAt: null, expiresAt, subscriptionExtension: null, createdAt: now };
  return {
    referral: { ...referral, status: "TRIAL_STARTED", trialStartDate: now },
    rewards: [
      { ...base, id: rewardIds.cash, rewardType: "CASH", cashAmountCents: CASH_REWARD_CENTS, freeMonths: null, userId: referral.referrerId },
      {
        ...base,
        id: rewardIds.freeMonth,
        rewardType: "FREE_MONTH",
        cashAmountCents: null,
        freeMonths: FREE_MONTHS_PER_REWARD,
        userId: referral.refereeId,
      },
    ],
  };
}

/**
 * A reward the caller may process: their own (another user's reward is NOT_FOUND, with status 400 as the spec
 * says), of the type named, still PENDING (NOT_PENDING; a reward past its expiry is EXPIRED and not pending).
 */
export function assertProcessable(reward: Reward | null, userId: string, type: RewardType, now: Date): Reward {
  if (!reward || reward.userId !== userId) throw new AppError("precondition", "NOT_FOUND", "Reward not found");
  if (reward.rewardType !== type) {
    throw AppError.validation(`This reward is a ${reward.rewardType} reward`, [{ field: "type", message: `must be ${reward.rewardType}` }]);
  }
  if (reward.status !== "PENDING" || isExpired(reward, now)) {
    throw new AppError(
      "precondition",
      "NOT_PENDING",
      `This reward is ${isExpired(reward, now) && reward.status === "PENDING" ? "EXPIRED" : reward.status}, not PENDING`,
    );
  }
  return reward;
}

export const isExpired = (reward: Reward, now: Date) => reward.expiresAt !== null && reward.expiresAt.getTime() <= now.getTime();

/** A referral is COMPLETED once both of its rewards are; the date of the referrer's claim is kept. */
export function referralAfterReward(referral: Referral, rewards: readonly Reward[], processed: Reward, now: Date): Referral {
  const statuses = rewards.map((reward) => (reward.id === processed.id ? "COMPLETED" : reward.status));
  const claimedByReferrer = processed.userId === referral.referrerId;
  return {
    ...referral,
    status: statuses.length === 2 && statuses.every((status) => status === "COMPLETED") ? "COMPLETED" : referral.status,
    rewardClaimedDate: claimedByReferrer ? (referral.rewardClaimedDate ?? now) : referral.rewardClaimedDate,
  };
}
