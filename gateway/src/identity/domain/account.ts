import { AppError } from "@study/platform/errors";

/** One way to sign in: the password ("credential") or an identity provider. */
export interface LinkedAccount {
  id: string;
  /** "credential" for e-mail and password, otherwise the identity provider (e.g. "google"). */
  providerId: string;
  /** The user's id at the provider. */
  accountId: string;
  createdAt: Date;
  hasAccessToken: boolean;
  hasRefreshToken: boolean;
}

/** A signed-in session of the user, as the user may see it (never its token). */
export interface ActiveSession {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
}

export const oldestFirst = (a: LinkedAccount, b: LinkedAccount) => a.createdAt.getTime() - b.createdAt.getTime();
export const mostRecentlyUsedFirst = (a: ActiveSession, b: ActiveSession) => b.updatedAt.getTime() - a.updatedAt.getTime();

/**
 * A user may unlink one of their own accounts, but never the only way they can sign in. `accountIds` are all
 * of the user's accounts; another user's account is NOT_FOUND, as an unknown one.
 */
export function assertUnlinkable(accountIds: readonly string[], accountId: string): void {
  if (!accountIds.includes(accountId)) throw AppError.notFound("Account");
  if (accountIds.length === 1) {
    throw new AppError("precondition", "LAST_SIGN_IN_METHOD", "This is your only way to sign in: link another one before unlinking it");
  }
}
