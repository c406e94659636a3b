import { formatCents } from "@study/platform/money";
import { CASH_REWARD_CENTS, FREE_MONTH_DAYS, MIN_WITHDRAWAL_CENTS } from "./money";

/** The words the dashboard shows about the program, from the same constants the rules use. */
export const REWARDS_BREAKDOWN = {
  user: `${formatCents(CASH_REWARD_CENTS)} account credit for every friend who starts a trial, payable once they make their first payment`,
  friend: `1 free month (${FREE_MONTH_DAYS} days) of Pro when they start a trial with your code`,
} as const;

export const HOW_IT_WORKS = [
  "Share your referral code with a friend.",
  "Your friend verifies their e-mail, signs up with your code and starts a trial or subscription.",
  "Your friend gets a free month to claim on this page.",
  `Once your friend's first payment succeeds, you get ${formatCents(CASH_REWARD_CENTS)} account credit: claim it on this page.`,
  `Withdraw your credit once it reaches ${formatCents(MIN_WITHDRAWAL_CENTS)}.`,
] as const;

/** "This week" on the dashboard: the last seven days up to now (a rolling window, the same in every time zone). */
export const weekStart = (now: Date) => new Date(now.getTime() - 7 * 86_400_000);
