import type { AuthState } from "../../domain/session";

/** The sessions as stored (read only). */
export interface SessionRepository {
  /** The session with this token and its user, whatever its expiry. */
  findWithUser(token: string): Promise<AuthState | null>;
  /** Whether a session with this token was deleted because it had expired (a tombstone remains). */
  wasExpired(token: string): Promise<boolean>;
}

/**
 * The auth library's own session handling: it renews a session that is due, deletes one that expired, and
 * decides as it does for its own endpoints.
 */
export interface SessionAuthority {
  lookUp(token: string): Promise<AuthState | null>;
}

/**
 * Ends one session on behalf of the caller (whose token proves who asks). `Outcome` is what the adapter hands
 * back to its transport (e.g. the cookies that clear the caller's own session); the use case passes it on.
 */
export interface SessionRevoker<Outcome> {
  revoke(callerToken: string, sessionToken: string): Promise<Outcome>;
}
