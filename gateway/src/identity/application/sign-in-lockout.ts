import {
  accountLocked,
  afterAccountFailure,
  afterFailure,
  afterSuccess,
  isInvalidCredentials,
  refusalOf,
  type FailureState,
  type LockoutPolicy,
} from "../domain/lockout";
import type { Clock } from "@study/platform/clock";
import type { AppError } from "@study/platform/errors";
import type { SignInFailureRepository } from "./ports/sign-in-failures.port";

/**
 * Slows down and then stops password guessing per account AND client address (an attacker's failures from one
 * address never lock the owner signing in from another), with an account-wide bound over all addresses that
 * spares the addresses the account signed in from before.
 */
export class SignInLockout {
  constructor(
    private readonly failures: SignInFailureRepository,
    private readonly policy: LockoutPolicy,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs a password sign-in for `email` from the client `clientKey` (its address; an IPv6 client by its /64) unless
   * it is refused first: the pair is locked (ACCOUNT_LOCKED, even with the right password), must still wait after
   * its last failure (RATE_LIMITED with Retry-After), or the account is throttled and this client never signed in
   * to it (ACCOUNT_LOCKED).
   *
   * The attempt counts as a failure before the password is checked, under the pair's lock, so parallel attempts
   * from one address see each other's and cannot outrun the delay. A success clears the pair's count (and marks
   * the address as one the account signs in from); an error other than INVALID_CREDENTIALS puts the count back; a
   * wrong password leaves it counted, adds to the account-wide count, and the attempt that reaches the limit
   * answers ACCOUNT_LOCKED.
   */
  async attempt<T>(email: string, clientKey: string, signIn: () => Promise<T>): Promise<T> {
    const account = await this.failures.accountFailures(email);
    type Reservation = { refusal: AppError } | { before: FailureState; counted: FailureState };
    const reserved = await this.failures.updatePair(email, clientKey, (state): { next: FailureState; result: Reservation } => {
      const now = this.clock.now();
      const refusal = refusalOf(state, account, this.policy, now);
      if (refusal) return { next: state, result: { refusal } };
      const counted = afterFailure(state, this.policy, now);
      return { next: counted, result: { before: state, counted } };
    });
    if ("refusal" in reserved) throw reserved.refusal;
    let result: T;
    try {
      result = await signIn();
    } catch (error) {
      if (!isInvalidCredentials(error)) {
        await this.restore(email, clientKey, reserved);
        throw error;
      }
      const now = this.clock.now();
      await this.failures.updateAccount(email, (state) => afterAccountFailure(state, this.policy, now));
      if (reserved.counted.lockedUntil) throw accountLocked(reserved.counted.lockedUntil, now);
      throw error;
    }
    await this.failures.updatePair(email, clientKey, () => ({ next: afterSuccess(), result: undefined }));
    return result;
  }

  /** Lifts every lock of the account, e.g. after a password reset (which proves control of the mailbox). */
  async lift(email: string): Promise<void> {
    await this.failures.resetAccount(email);
  }

  /**
   * Puts back the pair's count as it was before an attempt that failed for another reason than the password, unless
   * another attempt counted since (then this one stays counted: one too many rather than one too few).
   */
  private async restore(email: string, clientKey: string, attempt: { before: FailureState; counted: FailureState }): Promise<void> {
    await this.failures.updatePair(email, clientKey, (state) => {
      const untouched = state.failures === attempt.counted.failures && state.lastFailureAt?.getTime() === attempt.counted.lastFailureAt?.getTime();
      return { next: untouched ? { ...attempt.before, known: state.known } : state, result: undefined };
    });
  }
}
