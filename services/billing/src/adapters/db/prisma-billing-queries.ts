import type { BillingQueries, LeaderboardRow, RecentReferralRow, ReferralCounts, ReferralTotals } from "../../application/ports/billing-queries.port";
import type { PendingReason, ReferralStatus, Reward, RewardStatus } from "../../domain/referral";
import type { Withdrawal } from "../../domain/withdrawal";
import type { PrismaClient } from "../../generated/prisma/client";
import { toReward, toWithdrawal } from "./prisma-billing-store";

/** The dashboard's and credits page's reads: aggregates in SQL, one statement each. */
export class PrismaBillingQueries implements BillingQueries {
  constructor(private readonly prisma: PrismaClient) {}

  async referralTotals(userId: string, since: Date, now: Date): Promise<ReferralTotals> {
    const [row] = await this.prisma.$queryRaw<{ total: bigint | null; since: bigint | null; pending: bigint | null }[]>`
      SELECT sum(cash_amount_cents) FILTER (WHERE status = 'COMPLETED') AS total,
             sum(cash_amount_cents) FILTER (WHERE status = 'COMPLETED' AND claimed_at >= ${since}) AS since,
             sum(cash_amount_cents) FILTER (WHERE status = 'PENDING' AND (expires_at IS NULL OR expires_at > ${now})) AS pending
      FROM referral_reward WHERE user_id = ${userId} AND reward_type = 'CASH'`;
    return { totalEarnedCents: Number(row?.total ?? 0), earnedSinceCents: Number(row?.since ?? 0), pendingAmountCents: Number(row?.pending ?? 0) };
  }

  async referralCounts(userId: string): Promise<ReferralCounts> {
    const [row] = await this.prisma.$queryRaw<{ total: bigint; trials: bigint; pending: bigint }[]>`
      SELECT count(*) AS total,
             count(*) FILTER (WHERE status = 'TRIAL_STARTED') AS trials,
             count(*) FILTER (WHERE status = 'PENDING') AS pending
      FROM referral WHERE referrer_id = ${userId}`;
    return { total: Number(row?.total ?? 0), activeTrials: Number(row?.trials ?? 0), pending: Number(row?.pending ?? 0) };
  }

  async recentReferrals(userId: string, limit: number): Promise<RecentReferralRow[]> {
    const rows = await this.prisma.$queryRaw<
      {
        refereeName: string | null;
        status: string;
        signupDate: Date;
        cashAmountCents: number | null;
        rewardStatus: string | null;
        pendingReason: string | null;
      }[]
    >`
      SELECT a.name AS "refereeName", r.status, r.signup_date AS "signupDate",
             w.cash_amount_cents AS "cashAmountCents", w.status AS "rewardStatus", w.pending_reason AS "pendingReason"
      FROM referral r
      LEFT JOIN billing_account a ON a.user_id = r.referee_id
      LEFT JOIN referral_reward w ON w.referral_id = r.id AND w.reward_type = 'CASH'
      WHERE r.referrer_id = ${userId}
      ORDER BY r.signup_date DESC, r.id
      LIMIT ${limit}`;
    return rows.map((row) => ({
      refereeName: row.refereeName ?? "",
      status: row.status as ReferralStatus,
      signupDate: row.signupDate,
      reward:
        row.rewardStatus === null
          ? null
          : {
              cashAmountCents: row.cashAmountCents,
              status: row.rewardStatus as RewardStatus,
              pendingReason: row.pendingReason as PendingReason | null,
            },
    }));
  }

  async leaderboard(limit: number): Promise<LeaderboardRow[]> {
    const rows = await this.prisma.$queryRaw<{ name: string; earned: bigint }[]>`
      SELECT a.name, sum(w.cash_amount_cents) AS earned
      FROM referral_reward w JOIN billing_account a ON a.user_id = w.user_id
      WHERE w.reward_type = 'CASH' AND w.status = 'COMPLETED'
      GROUP BY a.user_id, a.name, a.created_at
      ORDER BY earned DESC, a.created_at ASC
      LIMIT ${limit}`;
    return rows.map((row) => ({ name: row.name, earnedCents: Number(row.earned) }));
  }

  async withdrawals(userId: string, limit: number): Promise<Withdrawal[]> {
    const rows = await this.prisma.withdrawal.findMany({ where: { userId }, orderBy: [{ requestedAt: "desc" }, { id: "asc" }], take: limit });
    return rows.map(toWithdrawal);
  }

  async pendingCashRewards(userId: string, now: Date): Promise<Reward[]> {
    const rows = await this.prisma.referralReward.findMany({
      where: { userId, rewardType: "CASH", status: "PENDING", OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toReward);
  }
}
