import { AppError } from "@study/platform/errors";
import type { Cents } from "./money";

/**
 * Every change of a balance is a ledger entry. Two balances per user: the spendable credit and the credit
 * reserved by withdrawals the processor has not settled. The account row keeps both sums; they always equal the
 * sums of the ledger.
 */
export type LedgerKind = "REWARD_CREDITED" | "WITHDRAWAL_RESERVED" | "WITHDRAWAL_PAID" | "WITHDRAWAL_RETURNED";

export interface Balances {
  creditCents: Cents;
  reservedCents: Cents;
}

export interface LedgerMovement {
  kind: LedgerKind;
  creditDeltaCents: Cents;
  reservedDeltaCents: Cents;
}

export const rewardCredited = (amountCents: Cents): LedgerMovement => ({
  kind: "REWARD_CREDITED",
  creditDeltaCents: amountCents,
  reservedDeltaCents: 0,
});
export const withdrawalReserved = (amountCents: Cents): LedgerMovement => ({
  kind: "WITHDRAWAL_RESERVED",
  creditDeltaCents: -amountCents,
  reservedDeltaCents: amountCents,
});
export const withdrawalPaid = (amountCents: Cents): LedgerMovement => ({
  kind: "WITHDRAWAL_PAID",
  creditDeltaCents: 0,
  reservedDeltaCents: -amountCents,
});
/** A failed payout's credit comes back; one the processor had already paid (then bounced) is no longer reserved. */
export const withdrawalReturned = (amountCents: Cents, alreadyPaid = false): LedgerMovement => ({
  kind: "WITHDRAWAL_RETURNED",
  creditDeltaCents: amountCents,
  reservedDeltaCents: alreadyPaid ? 0 : -amountCents,
});

/** The balances after a movement; refuses one that would make a balance negative (INSUFFICIENT_CREDIT). */
export function applyMovement(balances: Balances, movement: LedgerMovement): Balances {
  const next = {
    creditCents: balances.creditCents + movement.creditDeltaCents,
    reservedCents: balances.reservedCents + movement.reservedDeltaCents,
  };
  if (next.creditCents < 0) throw new AppError("precondition", "INSUFFICIENT_CREDIT", "Your account credit is lower than the amount requested");
  if (next.reservedCents < 0) throw AppError.internal(`A ${movement.kind} entry would settle more than is reserved`);
  return next;
}

/** The balances a list of movements adds up to (what the account row must hold). */
export function sumMovements(movements: readonly LedgerMovement[]): Balances {
  return movements.reduce<Balances>(
    (sum, movement) => ({
      creditCents: sum.creditCents + movement.creditDeltaCents,
      reservedCents: sum.reservedCents + movement.reservedDeltaCents,
    }),
    { creditCents: 0, reservedCents: 0 },
  );
}
