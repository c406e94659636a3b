import { AppError } from "@study/platform/errors";

export interface LockoutPolicy {
  maxFailures: number;
  lockMinutes: number;
}

/** Failed sign-ins in a row for one e-mail address, and the lock they caused. */
export interface FailureState {
  failures: number;
  lockedUntil: Date | null;
}

/** After `maxFailures` failed sign-ins in a row the account is locked for `lockMinutes`. */
export function afterFailure(state: FailureState, policy: LockoutPolicy, now: Date): FailureState {
  const failures = state.lockedUntil && state.lockedUntil <= now ? 1 : state.failures + 1;
  const lockedUntil = failures >= policy.maxFailures ? new Date(now.getTime() + policy.lockMinutes * 60_000) : null;
  return { failures, lockedUntil };
}

/** The lock still in force at `now`, if any. */
export function activeLock(state: FailureState | null, now: Date): Date | null {
  return state?.lockedUntil && state.lockedUntil > now ? state.lockedUntil : null;
}

export function accountLocked(lockedUntil: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
  return new AppError("forbidden", "ACCOUNT_LOCKED", `Too many failed sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute(s).`, {
    action: "RETRY_LATER",
    details: [{ field: "retryAfterSeconds", message: String(seconds) }],
  });
}

export const invalidCredentials = () => new AppError("unauthenticated", "INVALID_CREDENTIALS", "Invalid e-mail or password");

export const isInvalidCredentials = (error: unknown) => error instanceof AppError && error.code === "INVALID_CREDENTIALS";
