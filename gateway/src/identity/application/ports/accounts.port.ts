import type { ActiveSession, LinkedAccount } from "../../domain/account";

/** The user's accounts, seen under a lock on the user: no other unlink of theirs runs until `work` ends. */
export interface LockedAccounts {
  ids(): Promise<string[]>;
  remove(accountId: string): Promise<void>;
}

/** Persistence of linked accounts (ways to sign in). */
export interface AccountRepository {
  /** Runs `work` in one transaction holding a lock on the user, so that parallel unlinks are serialized. */
  withUserLocked<T>(userId: string, work: (accounts: LockedAccounts) => Promise<T>): Promise<T>;
}

/** What the user may see of their accounts and sessions. */
export interface AccountDirectory {
  accounts(userId: string): Promise<LinkedAccount[]>;
  /** The user's sessions that have not expired, with the token by which each is revoked. */
  sessions(userId: string): Promise<(ActiveSession & { token: string })[]>;
}
