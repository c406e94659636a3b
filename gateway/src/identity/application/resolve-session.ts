import { AppError } from "@study/platform/errors";
import { sessionExpired, sessionStanding, type AuthState, type SessionTimings } from "../domain/session";
import type { Clock } from "@study/platform/clock";
import type { SessionAuthority, SessionRepository } from "./ports/sessions.port";

/**
 * The session a request proves. Every request reads its session from the database (a revoked session is
 * refused at once), but the common case — a stored session not yet due for renewal — costs one query; an
 * unknown, expired or due session goes to the auth library, which renews, deletes expired sessions and
 * decides exactly as it does for its own endpoints (its lookup costs several HMACs and queries: it was half of
 * the gateway's CPU, docs/PERFORMANCE.md).
 */
export class ResolveSession {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly authority: SessionAuthority,
    private readonly timings: SessionTimings,
    private readonly clock: Clock,
  ) {}

  /** `provenToken`: the token the request proves (checked signature, or a raw token); null when none. */
  async execute(provenToken: string | null): Promise<AuthState | null> {
    if (!provenToken) return null;
    const stored = await this.sessions.findWithUser(provenToken);
    if (stored && sessionStanding(stored.session.expiresAt, this.timings, this.clock.now()) === "usable") return stored;
    return this.authority.lookUp(provenToken);
  }

  /**
   * Why a request without a valid session is refused: SESSION_EXPIRED for a token whose session ran out,
   * UNAUTHORIZED otherwise. `presentedToken` is the token as presented, before any signature check.
   */
  async refusal(presentedToken: string | null): Promise<AppError> {
    if (presentedToken && (await this.sessions.wasExpired(presentedToken))) return sessionExpired();
    return AppError.unauthenticated();
  }
}
