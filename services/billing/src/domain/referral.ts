import { AppError } from "@study/platform/errors";
import { CASH_REWARD_CENTS, FREE_MONTHS_PER_REWARD, type Cents } from "./money";

export type ReferralStatus = "PENDING" | "TRIAL_STARTED" | "COMPLETED" | "EXPIRED" | "CANCELLED";
export type RewardType = "CASH" | "FREE_MONTH";
export type RewardStatus = "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED" | "EXPIRED";
/** Why a PENDING reward cannot be processed yet. */
export type PendingReason = "AWAITING_FIRST_PAYMENT";

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
  /** Set while a PENDING reward cannot be processed (a CASH reward until the referee's first payment). */
  pendingReason: PendingReason | null;
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
 * A signup with a code (the spec's transition "(none) → referral PENDING"): the referee's e-mail must be verified
 * (EMAIL_NOT_VERIFIED), the code must exist, be active and not exhausted (INVALID_CODE), not be the referee's own
 * (SELF_REFERRAL), the referee must not be referred already (DUPLICATE_REFERRAL), and the referrer must not have
 * reached their sign-ups of the limit period (REFERRAL_LIMIT_REACHED; `referrerSignups` counts the referrer's
 * sign-ups in the period, the caller reads it under the code's lock).
 */
export function assertCanSignUp(
  code: ReferralCode | null,
  refereeId: string,
  existingReferral: Referral | null,
  checks: { emailVerified: boolean; referrerSignups: number; signupLimit: number },
): ReferralCode {
  assertEmailVerified(checks.emailVerified);
  if (!code || !code.isActive || (code.maxUsage !== null && code.usageCount >= code.maxUsage)) {
    throw new AppError("precondition", "INVALID_CODE", "This referral code is not valid");
  }
  if (code.userId === refereeId) throw new AppError("precondition", "SELF_REFERRAL", "You cannot use your own referral code");
  if (existingReferral) throw new AppError("precondition", "DUPLICATE_REFERRAL", "You have already signed up with a referral code");
  assertWithinLimit(checks.referrerSignups, checks.signupLimit, "This referral code has reached its sign-ups for now: try again later");
  return code;
}

/** A referral needs the referee's verified e-mail: throw-away addresses cannot farm rewards. */
export function assertEmailVerified(emailVerified: boolean): void {
  if (!emailVerified) {
    throw new AppError("precondition", "EMAIL_NOT_VERIFIED", "Verify your e-mail address before using a referral code", {
      action: "VERIFY_EMAIL",
    });
  }
}

/** A referrer's sign-ups or rewards within the limit period: `count` made so far may not reach `limit`. */
export function assertWithinLimit(count: number, limit: number, message: string): void {
  if (count >= limit) throw new AppError("precondition", "REFERRAL_LIMIT_REACHED", message, { action: "RETRY_LATER" });
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

/** A PENDING referral of the caller, or NO_REFERRAL. */
export function assertPendingReferral(referral: Referral | null): Referral {
  if (!referral || referral.status !== "PENDING") {
    throw new AppError("precondition", "NO_REFERRAL", "You have no pending referral to start a trial for");
  }
  return referral;
}

/**
 * The referee starts a trial (the caller has checked that it is a real one: see referral-eligibility.ts): the
 * referral moves to TRIAL_STARTED and two PENDING rewards are made, CASH for the referrer and FREE_MONTH for the
 * referee. NO_REFERRAL without a PENDING referral. The CASH reward waits for the referee's first payment
 * (AWAITING_FIRST_PAYMENT) unless `refereeHasPaid`: a trial alone pays nobody.
 */
export function startTrial(
  referral: Referral | null,
  rewardIds: { cash: string; freeMonth: string },
  now: Date,
  rewardValidityDays: number,
  refereeHasPaid = false,
): { referral: Referral; rewards: [Reward, Reward] } {
  const pending = assertPendingReferral(referral);
  const expiresAt = new Date(now.getTime() + rewardValidityDays * 86_400_000);
  const base = {
    referralId: pending.id,
    status: "PENDING" as const,
    claimedAt: null,
    expiresAt,
    subscriptionExtension: null,
    pendingReason: null,
    createdAt: now,
  };
  return {
    referral: { ...pending, status: "TRIAL_STARTED", trialStartDate: now },
    rewards: [
      {
        ...base,
        id: rewardIds.cash,
        rewardType: "CASH",
        cashAmountCents: CASH_REWARD_CENTS,
        freeMonths: null,
        userId: pending.referrerId,
        pendingReason: refereeHasPaid ? null : "AWAITING_FIRST_PAYMENT",
      },
      {
        ...base,
        id: rewardIds.freeMonth,
        rewardType: "FREE_MONTH",
        cashAmountCents: null,
        freeMonths: FREE_MONTHS_PER_REWARD,
        userId: pending.refereeId,
      },
    ],
  };
}

/** The referee's first payment succeeded: their referrer's CASH reward waiting for it can be processed. */
export function releasedByFirstPayment(reward: Reward): Reward {
  return reward.status === "PENDING" && reward.pendingReason === "AWAITING_FIRST_PAYMENT" ? { ...reward, pendingReason: null } : reward;
}

/** A PENDING reward past its expiry becomes EXPIRED (stored by the expiry job); any other is left as it is. */
export function expireReward(reward: Reward, now: Date): Reward {
  return reward.status === "PENDING" && isExpired(reward, now) ? { ...reward, status: "EXPIRED", pendingReason: null } : reward;
}

/**
 * A referral whose rewards all expired unprocessed is EXPIRED; one with a processed reward keeps its status (the
 * processed side happened), as does one with a reward still PENDING.
 */
export function referralAfterExpiry(referral: Referral, rewards: readonly Reward[]): Referral {
  const allExpired = rewards.length > 0 && rewards.every((reward) => reward.status === "EXPIRED");
  return allExpired && referral.status === "TRIAL_STARTED" ? { ...referral, status: "EXPIRED" } : referral;
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
  if (reward.pendingReason === "AWAITING_FIRST_PAYMENT") {
    throw new AppError(
      "precondition",
      "AWAITING_FIRST_PAYMENT",
      "This reward becomes payable once your friend's first payment succeeds (a trial alone does not pay out)",
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
