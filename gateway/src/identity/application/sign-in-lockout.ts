import { accountLocked, activeLock, afterFailure, isInvalidCredentials, type LockoutPolicy } from "../domain/lockout";
import type { Clock } from "@study/platform/clock";
import type { SignInFailureRepository } from "./ports/sign-in-failures.port";

/** Locks an e-mail address after repeated failed sign-ins (per address, whatever the client). */
export class SignInLockout {
  constructor(
    private readonly failures: SignInFailureRepository,
    private readonly policy: LockoutPolicy,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs a password sign-in for `email` unless the address is locked (ACCOUNT_LOCKED, even with the right
   * password). A sign-in that fails with INVALID_CREDENTIALS counts as a failure, and the one that reaches the
   * limit answers ACCOUNT_LOCKED; a successful one clears the count.
   */
  async attempt<T>(email: string, signIn: () => Promise<T>): Promise<T> {
    const now = this.clock.now();
    const lock = activeLock(await this.failures.find(email), now);
    if (lock) throw accountLocked(lock, now);
    let result: T;
    try {
      result = await signIn();
    } catch (error) {
      if (isInvalidCredentials(error)) {
        const lockedUntil = await this.recordFailure(email);
        if (lockedUntil) throw accountLocked(lockedUntil, this.clock.now());
      }
      throw error;
    }
    await this.failures.remove(email);
    return result;
  }

  /** Lifts a lock and forgets the failures, e.g. after a password reset (which proves control of the mailbox). */
  async lift(email: string): Promise<void> {
    await this.failures.remove(email);
  }

  private async recordFailure(email: string): Promise<Date | null> {
    const now = this.clock.now();
    const next = afterFailure((await this.failures.find(email)) ?? { failures: 0, lockedUntil: null }, this.policy, now);
    await this.failures.save(email, next, now);
    return next.lockedUntil;
  }
}
