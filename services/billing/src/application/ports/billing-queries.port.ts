import type { ReferralStatus, Reward } from "../../domain/referral";
import type { Withdrawal } from "../../domain/withdrawal";

export interface ReferralTotals {
  /** Cash rewards the user processed (credited). */
  totalEarnedCents: number;
  /** The same, processed since `since`. */
  earnedSinceCents: number;
  /** Cash rewards the user has, not processed yet and not expired. */
  pendingAmountCents: number;
}

export interface ReferralCounts {
  total: number;
  activeTrials: number;
  pending: number;
}

export interface RecentReferralRow {
  refereeName: string;
  status: ReferralStatus;
  signupDate: Date;
  /** The referrer's cash reward for it, when made. */
  reward: Pick<Reward, "cashAmountCents" | "status" | "pendingReason"> | null;
}

export interface LeaderboardRow {
  name: string;
  earnedCents: number;
}

/** Reads for the dashboard and the credits page (no locks, no writes). */
export interface BillingQueries {
  referralTotals(userId: string, since: Date, now: Date): Promise<ReferralTotals>;
  referralCounts(userId: string): Promise<ReferralCounts>;
  recentReferrals(userId: string, limit: number): Promise<RecentReferralRow[]>;
  /** Referrers by cash credited, most first (ties: earliest account first). */
  leaderboard(limit: number): Promise<LeaderboardRow[]>;
  withdrawals(userId: string, limit: number): Promise<Withdrawal[]>;
  /** The user's PENDING cash rewards that can still be claimed at `now`. */
  pendingCashRewards(userId: string, now: Date): Promise<Reward[]>;
}
