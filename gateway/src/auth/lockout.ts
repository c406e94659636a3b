import type { SqlClient } from "@study/db";
import { AppError } from "@study/platform";

export interface LockoutPolicy {
  maxFailures: number;
  lockMinutes: number;
}

export interface FailureState {
  failures: number;
  lockedUntil: Date | null;
}

/** Pure rule: after `maxFailures` failed sign-ins in a row the account is locked for `lockMinutes`. */
export function afterFailure(state: FailureState, policy: LockoutPolicy, now: Date): FailureState {
  const failures = state.lockedUntil && state.lockedUntil <= now ? 1 : state.failures + 1;
  const lockedUntil = failures >= policy.maxFailures ? new Date(now.getTime() + policy.lockMinutes * 60_000) : null;
  return { failures, lockedUntil };
}

export function accountLocked(lockedUntil: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
  return new AppError("forbidden", "ACCOUNT_LOCKED", `Too many failed sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute(s).`, {
    action: "RETRY_LATER",
    details: [{ field: "retryAfterSeconds", message: String(seconds) }],
  });
}

/** Failed sign-in bookkeeping per e-mail address (table sign_in_failure). */
export class SignInLockout {
  constructor(
    private readonly db: SqlClient,
    private readonly policy: LockoutPolicy,
  ) {}

  async assertNotLocked(email: string, now = new Date()): Promise<void> {
    const [row] = await this.db.$queryRawUnsafe<{ locked_until: Date | null }[]>(
      "SELECT locked_until FROM sign_in_failure WHERE email = $1",
      email,
    );
    if (row?.locked_until && row.locked_until > now) throw accountLocked(row.locked_until, now);
  }

  /** Records a failure; returns the lock end when this failure locked the account. */
  async recordFailure(email: string, now = new Date()): Promise<Date | null> {
    const [row] = await this.db.$queryRawUnsafe<{ failures: number; locked_until: Date | null }[]>(
      "SELECT failures, locked_until FROM sign_in_failure WHERE email = $1",
      email,
    );
    const next = afterFailure({ failures: row?.failures ?? 0, lockedUntil: row?.locked_until ?? null }, this.policy, now);
    await this.db.$executeRawUnsafe(
      `INSERT INTO sign_in_failure (email, failures, locked_until, last_failure_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (email) DO UPDATE SET failures = EXCLUDED.failures, locked_until = EXCLUDED.locked_until,
         last_failure_at = EXCLUDED.last_failure_at`,
      email,
      next.failures,
      next.lockedUntil,
      now,
    );
    return next.lockedUntil;
  }

  async reset(email: string): Promise<void> {
    await this.db.$executeRawUnsafe("DELETE FROM sign_in_failure WHERE email = $1", email);
  }
}
