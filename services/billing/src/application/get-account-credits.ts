import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import type { Reward } from "../domain/referral";
import type { Withdrawal } from "../domain/withdrawal";
import type { BillingQueries } from "./ports/billing-queries.port";
import type { BillingStore } from "./ports/billing-store.port";

/** How many withdrawals the credits page lists (newest first). */
const WITHDRAWALS_SHOWN = 50;

export interface AccountCredits {
  accountCreditCents: number;
  withdrawals: Withdrawal[];
  pendingRewards: Reward[];
  processorCustomerId: string | null;
}

export class GetAccountCredits {
  constructor(
    private readonly store: BillingStore,
    private readonly queries: BillingQueries,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string): Promise<AccountCredits> {
    requireUserId(userId);
    const [account, withdrawals, pendingRewards] = await Promise.all([
      this.store.findAccount(userId),
      this.queries.withdrawals(userId, WITHDRAWALS_SHOWN),
      this.queries.pendingCashRewards(userId, this.clock.now()),
    ]);
    return { accountCreditCents: account?.creditCents ?? 0, withdrawals, pendingRewards, processorCustomerId: account?.processorCustomerId ?? null };
  }
}
