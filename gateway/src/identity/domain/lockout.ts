import { AppError } from "@study/platform/errors";

/**
 * How failed password sign-ins slow down guessing. They are counted per account AND client address, so that an
 * attacker's failures from one address never lock the owner signing in from another; and per account over all
 * addresses, so that many addresses cannot guess one password without bound.
 */
export interface LockoutPolicy {
  /** Failures in a row of one account from one address that lock that pair. */
  maxFailures: number;
  /** How long such a lock lasts; also the window of the account-wide count. */
  lockMinutes: number;
  /** The wait after a pair's first failure, doubled by each further one until the lock (0: no wait). */
  delaySeconds: number;
  /** Failures of one account from all addresses within a window after which only addresses it signed in from may try. */
  accountMaxFailures: number;
}

/** Failed sign-ins in a row of one account from one client address, the lock they caused, and whether the account signed in from there. */
export interface FailureState {
  failures: number;
  lockedUntil: Date | null;
  lastFailureAt: Date | null;
  /** The account signed in successfully from this address before: it may still try while the account is throttled. */
  known: boolean;
}

/** Failed sign-ins of one account from every address since `windowStartedAt`. */
export interface AccountFailures {
  windowStartedAt: Date;
  failures: number;
}

export const NO_FAILURES: FailureState = { failures: 0, lockedUntil: null, lastFailureAt: null, known: false };

/** After `maxFailures` failed sign-ins in a row the pair is locked for `lockMinutes`; counting starts afresh once it ran out. */
export function afterFailure(state: FailureState, policy: LockoutPolicy, now: Date): FailureState {
  const failures = state.lockedUntil && state.lockedUntil <= now ? 1 : state.failures + 1;
  const lockedUntil = failures >= policy.maxFailures ? new Date(now.getTime() + policy.lockMinutes * 60_000) : null;
  return { ...state, failures, lockedUntil, lastFailureAt: now };
}

/** A successful sign-in forgets the pair's failures and remembers the address as one the account signs in from. */
export const afterSuccess = (): FailureState => ({ ...NO_FAILURES, known: true });

/** A password reset (which proves control of the mailbox) lifts locks and delays; the address stays known. */
export const afterReset = (state: FailureState): FailureState => ({ ...NO_FAILURES, known: state.known });

/** The account-wide count in fixed windows of `lockMinutes`. */
export function afterAccountFailure(state: AccountFailures | null, policy: LockoutPolicy, now: Date): AccountFailures {
  if (!state || windowEnd(state, policy) <= now) return { windowStartedAt: now, failures: 1 };
  return { ...state, failures: state.failures + 1 };
}

const windowEnd = (state: AccountFailures, policy: LockoutPolicy) => new Date(state.windowStartedAt.getTime() + policy.lockMinutes * 60_000);

/** The wait after `failures` failures in a row (below the lock): delaySeconds, doubled by each further failure. */
export function delayAfter(failures: number, policy: LockoutPolicy): number {
  if (failures < 1 || failures >= policy.maxFailures || policy.delaySeconds <= 0) return 0;
  return Math.min(policy.delaySeconds * 2 ** (failures - 1), policy.lockMinutes * 60);
}

/** The lock still in force at `now`, if any. */
export function activeLock(state: FailureState | null, now: Date): Date | null {
  return state?.lockedUntil && state.lockedUntil > now ? state.lockedUntil : null;
}

/**
 * Why an attempt of this account from this address is refused before its password is checked, or null:
 * the pair is locked (ACCOUNT_LOCKED), must still wait after its last failure (RATE_LIMITED with the seconds
 * left), or the account is throttled over all addresses and this one never signed in to it (ACCOUNT_LOCKED).
 */
export function refusalOf(pair: FailureState, account: AccountFailures | null, policy: LockoutPolicy, now: Date): AppError | null {
  const lock = activeLock(pair, now);
  if (lock) return accountLocked(lock, now);
  const delay = delayAfter(pair.failures, policy);
  if (delay > 0 && pair.lastFailureAt) {
    const until = new Date(pair.lastFailureAt.getTime() + delay * 1000);
    if (until > now) return signInDelayed(until, now);
  }
  if (!pair.known && account && account.failures >= policy.accountMaxFailures && windowEnd(account, policy) > now) {
    return accountLocked(windowEnd(account, policy), now);
  }
  return null;
}

const secondsUntil = (until: Date, now: Date) => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));

export function accountLocked(lockedUntil: Date, now: Date): AppError {
  const seconds = secondsUntil(lockedUntil, now);
  return new AppError("forbidden", "ACCOUNT_LOCKED", `Too many failed sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute(s).`, {
    action: "RETRY_LATER",
    details: [{ field: "retryAfterSeconds", message: String(seconds) }],
  });
}

/** The progressive delay: 429 with the seconds to wait (the gateway sends them as Retry-After too). */
export function signInDelayed(until: Date, now: Date): AppError {
  const seconds = secondsUntil(until, now);
  return new AppError("rate_limited", "RATE_LIMITED", `Too many failed sign-in attempts. Try again in ${seconds} second(s).`, {
    action: "RETRY_LATER",
    details: [{ field: "retryAfterSeconds", message: String(seconds) }],
  });
}

export const invalidCredentials = () => new AppError("unauthenticated", "INVALID_CREDENTIALS", "Invalid e-mail or password");

export const isInvalidCredentials = (error: unknown) => error instanceof AppError && error.code === "INVALID_CREDENTIALS";
