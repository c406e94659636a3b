import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { initials, shortName } from "../domain/names";
import { HOW_IT_WORKS, REWARDS_BREAKDOWN, weekStart } from "../domain/referral-program";
import type { PendingReason, ReferralStatus } from "../domain/referral";
import type { BillingQueries } from "./ports/billing-queries.port";
import type { BillingStore } from "./ports/billing-store.port";

export interface ReferralDashboard {
  totalEarnedCents: number;
  earnedThisWeekCents: number;
  pendingAmountCents: number;
  leaderboard: { name: string; amountCents: number }[];
  totalReferrals: number;
  goal: number;
  activeTrials: number;
  pending: number;
  recentReferrals: {
    initials: string;
    name: string;
    status: ReferralStatus;
    date: Date;
    amountCents: number;
    pending: boolean;
    /** Why the pending reward cannot be processed yet (the referee has not paid). */
    pendingReason: PendingReason | null;
  }[];
  referralCode: string;
  accountCreditCents: number;
  rewardsBreakdown: { user: string; friend: string };
  howItWorks: string[];
}

export interface DashboardSettings {
  goal: number;
  leaderboardSize: number;
  recentReferrals: number;
}

/** The referral dashboard: the caller's totals, progress towards the goal, code and credit, and the leaderboard. */
export class GetReferralDashboard {
  constructor(
    private readonly store: BillingStore,
    private readonly queries: BillingQueries,
    private readonly clock: Clock,
    private readonly settings: DashboardSettings,
  ) {}

  async execute(userId: string): Promise<ReferralDashboard> {
    requireUserId(userId);
    const now = this.clock.now();
    const [account, code, totals, counts, recent, leaders] = await Promise.all([
      this.store.findAccount(userId),
      this.store.findActiveCode(userId),
      this.queries.referralTotals(userId, weekStart(now), now),
      this.queries.referralCounts(userId),
      this.queries.recentReferrals(userId, this.settings.recentReferrals),
      this.queries.leaderboard(this.settings.leaderboardSize),
    ]);
    return {
      totalEarnedCents: totals.totalEarnedCents,
      earnedThisWeekCents: totals.earnedSinceCents,
      pendingAmountCents: totals.pendingAmountCents,
      leaderboard: leaders.map((leader) => ({ name: shortName(leader.name), amountCents: leader.earnedCents })),
      totalReferrals: counts.total,
      goal: this.settings.goal,
      activeTrials: counts.activeTrials,
      pending: counts.pending,
      recentReferrals: recent.map((row) => ({
        initials: initials(row.refereeName),
        name: shortName(row.refereeName),
        status: row.status,
        date: row.signupDate,
        amountCents: row.reward?.cashAmountCents ?? 0,
        pending: row.reward?.status === "PENDING",
        pendingReason: row.reward?.status === "PENDING" ? row.reward.pendingReason : null,
      })),
      referralCode: code?.code ?? "",
      accountCreditCents: account?.creditCents ?? 0,
      rewardsBreakdown: { ...REWARDS_BREAKDOWN },
      howItWorks: [...HOW_IT_WORKS],
    };
  }
}
