import type { AccountFailures, FailureState } from "../../domain/lockout";

/** Failed sign-in bookkeeping per account (e-mail) and client address, and per account over all addresses. */
export interface SignInFailureRepository {
  /**
   * Runs `change` on the state of this account from this address (NO_FAILURES when none is stored) while no other
   * change of the same pair runs, stores the state it returns and answers its result.
   */
  updatePair<R>(email: string, clientAddress: string, change: (state: FailureState) => { next: FailureState; result: R }): Promise<R>;
  /** The account's failures over all addresses in its current window. */
  accountFailures(email: string): Promise<AccountFailures | null>;
  /** Runs `change` on the account-wide count while no other change of it runs, and stores what it returns. */
  updateAccount(email: string, change: (state: AccountFailures | null) => AccountFailures): Promise<void>;
  /** Lifts every lock and delay of the account (the addresses it signed in from stay known) and forgets its account-wide count. */
  resetAccount(email: string): Promise<void>;
}
