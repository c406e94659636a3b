import { AppError } from "@study/platform/errors";
import { formatCents } from "@study/platform/money";

/** Amounts are integer cents everywhere inside the system; the REST surface shows them with two decimals. */
export type Cents = number;

/** The spec's rules of money. */
export const CASH_REWARD_CENTS: Cents = 500;
export const MIN_WITHDRAWAL_CENTS: Cents = 1_000;
export const FREE_MONTH_DAYS = 30;
export const FREE_MONTHS_PER_REWARD = 1;

/** A withdrawal amount: a whole, positive number of cents, at least the minimum (MIN_AMOUNT). */
export function assertWithdrawalAmount(amountCents: Cents): void {
  if (!Number.isSafeInteger(amountCents) || amountCents <= 0) {
    throw AppError.validation("amount must be a positive amount of money", [{ field: "amount", message: "must be positive" }]);
  }
  if (amountCents < MIN_WITHDRAWAL_CENTS) {
    throw new AppError("precondition", "MIN_AMOUNT", `The minimum withdrawal is ${formatCents(MIN_WITHDRAWAL_CENTS)}`);
  }
}
