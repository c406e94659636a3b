import type { ActiveSession, LinkedAccount } from "../../../src/identity/domain/account";
import type { VerificationRefusal } from "../../../src/identity/domain/email-verification";
import { afterReset, NO_FAILURES, type AccountFailures, type FailureState } from "../../../src/identity/domain/lockout";
import type { ProviderAccessToken } from "../../../src/identity/domain/provider-token";
import type { AuthState } from "../../../src/identity/domain/session";
import type { AccountDirectory, AccountRepository, LockedAccounts } from "../../../src/identity/application/ports/accounts.port";
import type { Clock } from "@study/platform/clock";
import type { EmailVerifier, VerificationTokenLedger } from "../../../src/identity/application/ports/email-verification.port";
import { ProviderRefreshFailed, type ProviderTokens } from "../../../src/identity/application/ports/provider-tokens.port";
import type { SessionAuthority, SessionRepository, SessionRevoker } from "../../../src/identity/application/ports/sessions.port";
import type { SignInFailureRepository } from "../../../src/identity/application/ports/sign-in-failures.port";

/**
 * Accounts per user, with the per-user lock a transaction on the user row gives: `withUserLocked` calls of one
 * user run one after the other.
 */
export class InMemoryAccounts implements AccountRepository, AccountDirectory {
  readonly accountsByUser = new Map<string, LinkedAccount[]>();
  readonly sessionsByUser = new Map<string, (ActiveSession & { token: string })[]>();
  private readonly locks = new Map<string, Promise<unknown>>();

  link(userId: string, providerId: string, createdAt: Date): LinkedAccount {
    const account = {
      id: `${userId}-${providerId}`,
      providerId,
      accountId: `${providerId}-id`,
      createdAt,
      hasAccessToken: providerId !== "credential",
      hasRefreshToken: false,
    };
    this.accountsByUser.set(userId, [...(this.accountsByUser.get(userId) ?? []), account]);
    return account;
  }

  addSession(userId: string, session: ActiveSession & { token: string }) {
    this.sessionsByUser.set(userId, [...(this.sessionsByUser.get(userId) ?? []), session]);
  }

  withUserLocked<T>(userId: string, work: (accounts: LockedAccounts) => Promise<T>): Promise<T> {
    const locked: LockedAccounts = {
      ids: async () => (this.accountsByUser.get(userId) ?? []).map((account) => account.id),
      remove: async (accountId) => {
        this.accountsByUser.set(
          userId,
          (this.accountsByUser.get(userId) ?? []).filter((account) => account.id !== accountId),
        );
      },
    };
    const run = (this.locks.get(userId) ?? Promise.resolve()).then(() => work(locked));
    // The caller gets the work's error from `run`; the next waiter only needs it settled.
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(userId, settled);
    return run;
  }

  async accounts(userId: string) {
    return [...(this.accountsByUser.get(userId) ?? [])];
  }

  async sessions(userId: string) {
    return [...(this.sessionsByUser.get(userId) ?? [])];
  }
}

/** Records which tokens it was asked to revoke; answers the cookies a transport would send. */
export class RecordingRevoker implements SessionRevoker<string[]> {
  readonly revoked: { callerToken: string; sessionToken: string }[] = [];
  async revoke(callerToken: string, sessionToken: string) {
    this.revoked.push({ callerToken, sessionToken });
    return callerToken === sessionToken ? ["session=; Max-Age=0"] : [];
  }
}

/** Failure states per "email address" pair and account-wide counts; changes of one pair run one after the other. */
export class InMemorySignInFailures implements SignInFailureRepository {
  readonly pairs = new Map<string, FailureState>();
  readonly accounts = new Map<string, AccountFailures>();
  private readonly locks = new Map<string, Promise<unknown>>();

  pair(email: string, clientAddress: string): FailureState | undefined {
    return this.pairs.get(`${email} ${clientAddress}`);
  }

  updatePair<R>(email: string, clientAddress: string, change: (state: FailureState) => { next: FailureState; result: R }): Promise<R> {
    const key = `${email} ${clientAddress}`;
    const run = (this.locks.get(key) ?? Promise.resolve()).then(() => {
      const { next, result } = change(this.pairs.get(key) ?? NO_FAILURES);
      if (next.failures === 0 && !next.known) this.pairs.delete(key);
      else this.pairs.set(key, next);
      return result;
    });
    this.locks.set(
      key,
      run.then(
        () => undefined,
        () => undefined,
      ),
    );
    return run;
  }

  async accountFailures(email: string) {
    return this.accounts.get(email) ?? null;
  }

  async updateAccount(email: string, change: (state: AccountFailures | null) => AccountFailures) {
    this.accounts.set(email, change(this.accounts.get(email) ?? null));
  }

  async resetAccount(email: string) {
    for (const [key, state] of this.pairs) {
      if (!key.startsWith(`${email} `)) continue;
      if (state.known) this.pairs.set(key, afterReset(state));
      else this.pairs.delete(key);
    }
    this.accounts.delete(email);
  }
}

/** Stored sessions and tombstones; the "library" renews a session it is asked about and forgets expired ones. */
export class InMemorySessions implements SessionRepository, SessionAuthority {
  readonly stored = new Map<string, AuthState>();
  readonly tombstones = new Set<string>();
  readonly libraryLookUps: string[] = [];
  constructor(
    private readonly clock: Clock,
    private readonly lifetimeMs: number,
  ) {}

  async findWithUser(token: string) {
    return this.stored.get(token) ?? null;
  }
  async wasExpired(token: string) {
    return this.tombstones.has(token);
  }
  async lookUp(token: string) {
    this.libraryLookUps.push(token);
    const state = this.stored.get(token);
    if (!state) return null;
    if (state.session.expiresAt <= this.clock.now()) {
      this.stored.delete(token);
      this.tombstones.add(token);
      return null;
    }
    const renewed = { ...state, session: { ...state.session, expiresAt: new Date(this.clock.now().getTime() + this.lifetimeMs) } };
    this.stored.set(token, renewed);
    return renewed;
  }
}

export class InMemoryProviderTokens implements ProviderTokens {
  readonly accounts = new Map<string, { accountId: string; token: ProviderAccessToken | "refresh-fails" }>();
  async findAccount(userId: string, provider: string) {
    return this.accounts.get(`${userId}/${provider}`)?.accountId ?? null;
  }
  async accessToken(userId: string, accountId: string) {
    const entry = [...this.accounts.values()].find((candidate) => candidate.accountId === accountId);
    if (!entry) throw new Error(`no account ${accountId} of ${userId}`);
    if (entry.token === "refresh-fails") throw new ProviderRefreshFailed("invalid_grant");
    return entry.token;
  }
}

export class InMemoryEmailVerification implements EmailVerifier, VerificationTokenLedger {
  readonly sent: string[] = [];
  readonly claimed = new Set<string>();
  readonly verified: string[] = [];
  constructor(private readonly refusals: Record<string, VerificationRefusal> = {}) {}
  async sendVerification(email: string) {
    this.sent.push(email);
  }
  async verify(token: string) {
    const refusal = this.refusals[token] ?? null;
    if (!refusal) this.verified.push(token);
    return refusal;
  }
  async claim(token: string) {
    if (this.claimed.has(token)) return false;
    this.claimed.add(token);
    return true;
  }
}
