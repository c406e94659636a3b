import { AppError } from "@study/platform/errors";
import { APIError } from "better-auth";
import type { ActiveSession, LinkedAccount } from "../../domain/account";
import type { VerificationRefusal } from "../../domain/email-verification";
import { invalidCredentials } from "../../domain/lockout";
import type { ProviderAccessToken } from "../../domain/provider-token";
import type { AuthState } from "../../domain/session";
import type { AccountDirectory } from "../../application/ports/accounts.port";
import type { EmailVerifier } from "../../application/ports/email-verification.port";
import { ProviderRefreshFailed, type ProviderTokens } from "../../application/ports/provider-tokens.port";
import type { SessionAuthority, SessionRevoker } from "../../application/ports/sessions.port";
import type { Auth } from "./auth";

/** `Set-Cookie` values the library wants sent to the client (e.g. clearing the session cookie). */
export type SetCookies = string[];

/** The auth library's error code, if it is one of its refusals. */
const libraryCode = (error: unknown) => (error instanceof APIError ? (error.body as { code?: string } | undefined)?.code : undefined);

/**
 * Headers that present a session to the library as the caller's: its bearer plugin turns the token into its
 * signed cookie, whichever way (cookie name, signed or raw) the request carried it to the gateway.
 */
export function withSession(token: string, headers = new Headers()): Headers {
  const presented = new Headers(headers);
  presented.set("authorization", `Bearer ${token}`);
  return presented;
}

/** Accounts and sessions as the library stores them. */
export class BetterAuthAccountDirectory implements AccountDirectory {
  constructor(private readonly auth: Auth) {}

  async accounts(userId: string): Promise<LinkedAccount[]> {
    const { internalAdapter } = await this.auth.$context;
    return (await internalAdapter.findAccounts(userId)).map((account) => ({
      id: account.id,
      providerId: account.providerId,
      accountId: account.accountId,
      createdAt: account.createdAt,
      hasAccessToken: Boolean(account.accessToken),
      hasRefreshToken: Boolean(account.refreshToken),
    }));
  }

  async sessions(userId: string): Promise<(ActiveSession & { token: string })[]> {
    const { internalAdapter } = await this.auth.$context;
    return (await internalAdapter.listSessions(userId)).map((session) => ({
      id: session.id,
      token: session.token,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      expiresAt: session.expiresAt,
      ipAddress: session.ipAddress ?? null,
      userAgent: session.userAgent ?? null,
    }));
  }
}

/** The library's session lookup (renewal, deletion of expired sessions) and revocation. */
export class BetterAuthSessions implements SessionAuthority, SessionRevoker<SetCookies> {
  constructor(private readonly auth: Auth) {}

  async lookUp(token: string): Promise<AuthState | null> {
    return (await this.auth.api.getSession({ headers: withSession(token) })) ?? null;
  }

  /** Revoking the caller's own session also clears its cookie. */
  async revoke(callerToken: string, sessionToken: string): Promise<SetCookies> {
    const result = await this.auth.api.revokeSession({ body: { token: sessionToken }, headers: withSession(callerToken), returnHeaders: true });
    return result.headers.getSetCookie();
  }
}

/**
 * Provider tokens through the library: it decrypts the stored token and, when it has expired, refreshes it
 * with the stored refresh token and stores the new one.
 */
export class BetterAuthProviderTokens implements ProviderTokens {
  constructor(private readonly auth: Auth) {}

  async findAccount(userId: string, provider: string): Promise<string | null> {
    const { internalAdapter } = await this.auth.$context;
    return (await internalAdapter.findAccounts(userId)).find((account) => account.providerId === provider)?.id ?? null;
  }

  async accessToken(userId: string, accountId: string): Promise<ProviderAccessToken> {
    const token = await this.auth.api.getAccessToken({ body: { accountId, userId } }).catch((error: unknown) => {
      // The library reports any failed refresh (invalid_grant: access revoked, refresh token expired) this way.
      if (libraryCode(error) === "FAILED_TO_GET_ACCESS_TOKEN") throw new ProviderRefreshFailed((error as Error).message);
      throw error;
    });
    return { accessToken: token.accessToken, expiresAt: token.accessTokenExpiresAt, scopes: token.scopes };
  }
}

/** E-mail verification as the library does it (its mail goes out through the gateway's Mailer). */
export class BetterAuthEmailVerifier implements EmailVerifier {
  constructor(private readonly auth: Auth) {}

  async sendVerification(email: string): Promise<void> {
    await this.auth.api.sendVerificationEmail({ body: { email } });
  }

  async verify(token: string): Promise<VerificationRefusal | null> {
    try {
      await this.auth.api.verifyEmail({ query: { token } });
      return null;
    } catch (error) {
      return libraryCode(error) === "TOKEN_EXPIRED" ? "TOKEN_EXPIRED" : "INVALID_TOKEN";
    }
  }
}

/** Maps the auth library's refusals to the spec's codes; anything unexpected stays as it is (internal). */
function fromLibraryError(error: unknown): unknown {
  if (!(error instanceof APIError)) return error;
  switch (libraryCode(error)) {
    case "INVALID_EMAIL_OR_PASSWORD":
    case "INVALID_PASSWORD":
      return invalidCredentials();
    case "USER_ALREADY_EXISTS":
    case "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL":
      return new AppError("conflict", "EMAIL_ALREADY_REGISTERED", "An account with this e-mail address already exists");
    case "PASSWORD_TOO_SHORT":
    case "PASSWORD_TOO_LONG":
      return AppError.validation("Invalid password", [{ field: "password", message: error.message }]);
    case "INVALID_EMAIL":
      return AppError.validation("Invalid e-mail", [{ field: "email", message: "must be a valid e-mail address" }]);
    default:
      return error;
  }
}

/** A session the library just started, and the cookies that carry it to the client. */
export interface StartedSession {
  state: AuthState;
  setCookies: SetCookies;
}

/**
 * Password accounts, run by the library (scrypt hashes, sessions, reset tokens). `headers` are the client's,
 * as the library records them on a new session (user agent, address).
 */
export class BetterAuthCredentials {
  constructor(private readonly auth: Auth) {}

  async signUp(body: { name: string; email: string; password: string }, headers: Headers): Promise<StartedSession> {
    const result = await this.auth.api.signUpEmail({ body, headers, returnHeaders: true }).catch((error: unknown) => {
      throw fromLibraryError(error);
    });
    if (!result.response.token) throw AppError.internal("sign-up did not start a session");
    return { state: await this.stateForToken(result.response.token), setCookies: result.headers.getSetCookie() };
  }

  /** Wrong e-mail or password: INVALID_CREDENTIALS. */
  async signIn(body: { email: string; password: string }, headers: Headers): Promise<StartedSession> {
    const result = await this.auth.api.signInEmail({ body, headers, returnHeaders: true }).catch((error: unknown) => {
      throw fromLibraryError(error);
    });
    return { state: await this.stateForToken(result.response.token), setCookies: result.headers.getSetCookie() };
  }

  async signOut(sessionToken: string, headers: Headers): Promise<SetCookies> {
    const result = await this.auth.api.signOut({ headers: withSession(sessionToken, headers), returnHeaders: true });
    return result.headers.getSetCookie();
  }

  /** Mails a reset link when the address has an account; answers the same either way. */
  async requestPasswordReset(email: string): Promise<void> {
    await this.auth.api.requestPasswordReset({ body: { email } });
  }

  /** Sets the new password and ends every session of the user; false when the token is invalid, expired or used. */
  async resetPassword(token: string, newPassword: string): Promise<boolean> {
    return this.auth.api.resetPassword({ body: { token, newPassword } }).then(
      () => true,
      () => false,
    );
  }

  /** Reads back the session just created, in the library's full shape. */
  private async stateForToken(token: string): Promise<AuthState> {
    const state = await this.auth.api.getSession({ headers: withSession(token) });
    if (!state) throw AppError.internal("session vanished right after sign-in");
    return state;
  }
}
