import { AppError } from "@study/platform/errors";
import type { Cents } from "./money";

export type WithdrawalStatus = "PROCESSING" | "COMPLETED" | "FAILED";

export interface Withdrawal {
  id: string;
  userId: string;
  amountCents: Cents;
  status: WithdrawalStatus;
  processorPaymentId: string | null;
  failureReason: string | null;
  requestedAt: Date;
  completedAt: Date | null;
}

export function newWithdrawal(id: string, userId: string, amountCents: Cents, now: Date): Withdrawal {
  return { id, userId, amountCents, status: "PROCESSING", processorPaymentId: null, failureReason: null, requestedAt: now, completedAt: null };
}

/** The processor paid it out. Only a PROCESSING withdrawal settles; a settled one is left as it is (null). */
export function completeWithdrawal(withdrawal: Withdrawal, now: Date): Withdrawal | null {
  if (withdrawal.status !== "PROCESSING") return null;
  return { ...withdrawal, status: "COMPLETED", completedAt: now };
}

/** The payout failed or was refused: the withdrawal fails (its credit is returned by the caller), once. */
export function failWithdrawal(withdrawal: Withdrawal, reason: string, now: Date): Withdrawal | null {
  if (withdrawal.status === "FAILED") return null;
  if (withdrawal.status === "COMPLETED") {
    // Stripe reports a paid payout that later bounced as payout.failed: the money came back, so the credit does too.
    return { ...withdrawal, status: "FAILED", failureReason: reason, completedAt: null };
  }
  return { ...withdrawal, status: "FAILED", failureReason: reason.slice(0, 500), completedAt: now };
}

export function assertPayable(processorCustomerId: string | null): string {
  if (!processorCustomerId) {
    throw new AppError(
      "precondition",
      "PROCESSING_FAILED",
      "Your payment account is not set up yet: withdrawals need a payment processor customer, made shortly after sign-up. Try again in a minute.",
      { action: "RETRY_LATER" },
    );
  }
  return processorCustomerId;
}
