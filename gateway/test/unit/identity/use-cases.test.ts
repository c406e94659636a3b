import { fixedClock, type FixedClock } from "@study/platform/clock";
import { AppError } from "@study/platform";
import { AccountDetails } from "../../../src/identity/application/account-details";
import { ConfirmEmail, RequestEmailVerification } from "../../../src/identity/application/email-verification";
import { GetProviderAccessToken } from "../../../src/identity/application/provider-access-token";
import { ResolveSession } from "../../../src/identity/application/resolve-session";
import { RevokeSession } from "../../../src/identity/application/revoke-session";
import { SignInLockout } from "../../../src/identity/application/sign-in-lockout";
import { UnlinkAccount } from "../../../src/identity/application/unlink-account";
import { invalidCredentials } from "../../../src/identity/domain/lockout";
import type { AuthState } from "../../../src/identity/domain/session";
import {
  InMemoryAccounts,
  InMemoryEmailVerification,
  InMemoryProviderTokens,
  InMemorySessions,
  InMemorySignInFailures,
  RecordingRevoker,
} from "./in-memory-ports";
import { refusal } from "@study/testkit/refusal";

const minutes = (n: number) => n * 60_000;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute));

describe("UnlinkAccount", () => {
  let accounts: InMemoryAccounts;
  beforeEach(() => {
    accounts = new InMemoryAccounts();
  });

  it("unlinks one of two ways to sign in, then refuses the last one with LAST_SIGN_IN_METHOD", async () => {
    const password = accounts.link("ada", "credential", at(0));
    const google = accounts.link("ada", "google", at(1));
    await new UnlinkAccount(accounts).execute("ada", google.id);
    expect((await accounts.accounts("ada")).map((account) => account.id)).toEqual([password.id]);

    expect(await refusal(() => new UnlinkAccount(accounts).execute("ada", password.id))).toEqual({
      kind: "precondition",
      code: "LAST_SIGN_IN_METHOD",
      details: [],
    });
    expect(await accounts.accounts("ada")).toHaveLength(1);
  });

  it("answers NOT_FOUND for another user's account or an unknown one, and leaves them alone", async () => {
    accounts.link("ada", "credential", at(0));
    const bosGoogle = accounts.link("bo", "google", at(0));
    accounts.link("bo", "credential", at(1));
    for (const accountId of [bosGoogle.id, "no-such-account"]) {
      expect(await refusal(() => new UnlinkAccount(accounts).execute("ada", accountId))).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    }
    expect(await accounts.accounts("bo")).toHaveLength(2);
  });

  it("keeps one way to sign in when both are unlinked at the same time (the check runs under the user's lock)", async () => {
    const ids = [accounts.link("cy", "credential", at(0)).id, accounts.link("cy", "google", at(1)).id];
    const outcomes = await Promise.allSettled(ids.map((id) => new UnlinkAccount(accounts).execute("cy", id)));
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(await accounts.accounts("cy")).toHaveLength(1);
  });
});

describe("AccountDetails", () => {
  it("lists accounts oldest first and sessions most recently used first, without session tokens", async () => {
    const accounts = new InMemoryAccounts();
    const google = accounts.link("ada", "google", at(5));
    const password = accounts.link("ada", "credential", at(1));
    const session = (id: string, usedAt: Date) => ({
      id,
      token: `token-${id}`,
      createdAt: at(0),
      updatedAt: usedAt,
      expiresAt: at(60),
      ipAddress: null,
      userAgent: "jest",
    });
    accounts.addSession("ada", session("old", at(2)));
    accounts.addSession("ada", session("recent", at(9)));

    const details = await new AccountDetails(accounts).execute("ada");
    expect(details.accounts.map((account) => account.id)).toEqual([password.id, google.id]);
    expect(details.sessions.map((entry) => entry.id)).toEqual(["recent", "old"]);
    expect(JSON.stringify(details)).not.toContain("token-");
  });
});

describe("RevokeSession", () => {
  const caller = { userId: "ada", token: "ada-laptop" };
  let accounts: InMemoryAccounts;
  let revoker: RecordingRevoker;
  beforeEach(() => {
    accounts = new InMemoryAccounts();
    revoker = new RecordingRevoker();
    for (const [userId, id] of [
      ["ada", "laptop"],
      ["ada", "phone"],
      ["bo", "desk"],
    ]) {
      accounts.addSession(userId, {
        id,
        token: `${userId}-${id}`,
        createdAt: at(0),
        updatedAt: at(0),
        expiresAt: at(60),
        ipAddress: null,
        userAgent: null,
      });
    }
  });

  it("revokes one of the caller's sessions by its token, on the caller's behalf, and passes the outcome on", async () => {
    expect(await new RevokeSession(accounts, revoker).execute(caller, "phone")).toEqual([]);
    expect(await new RevokeSession(accounts, revoker).execute(caller, "laptop")).toEqual(["session=; Max-Age=0"]);
    expect(revoker.revoked).toEqual([
      { callerToken: "ada-laptop", sessionToken: "ada-phone" },
      { callerToken: "ada-laptop", sessionToken: "ada-laptop" },
    ]);
  });

  it("answers NOT_FOUND for another user's session or an unknown one, revoking nothing", async () => {
    for (const sessionId of ["desk", "nope"]) {
      expect(await refusal(() => new RevokeSession(accounts, revoker).execute(caller, sessionId))).toMatchObject({
        kind: "not_found",
        code: "NOT_FOUND",
      });
    }
    expect(revoker.revoked).toEqual([]);
  });
});

describe("SignInLockout", () => {
  const policy = { maxFailures: 3, lockMinutes: 15 };
  let failures: InMemorySignInFailures;
  let clock: FixedClock;
  let lockout: SignInLockout;
  beforeEach(() => {
    failures = new InMemorySignInFailures();
    clock = fixedClock(at(0));
    lockout = new SignInLockout(failures, policy, clock);
  });
  const wrongPassword = () => Promise.reject(invalidCredentials());
  const rightPassword = () => Promise.resolve("signed in");

  it("locks after the configured failures in a row: ACCOUNT_LOCKED on the last one and even with the right password", async () => {
    for (let i = 0; i < 2; i++)
      expect(await refusal(() => lockout.attempt("ada@example.com", wrongPassword))).toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect(await refusal(() => lockout.attempt("ada@example.com", wrongPassword))).toEqual({
      kind: "forbidden",
      code: "ACCOUNT_LOCKED",
      details: [{ field: "retryAfterSeconds", message: "900" }],
    });
    clock.advance(5 * 60_000);
    const signIn = jest.fn(rightPassword);
    expect(await refusal(() => lockout.attempt("ada@example.com", signIn))).toEqual({
      kind: "forbidden",
      code: "ACCOUNT_LOCKED",
      details: [{ field: "retryAfterSeconds", message: "600" }],
    });
    expect(signIn).not.toHaveBeenCalled();
    expect(await lockout.attempt("bo@example.com", rightPassword)).toBe("signed in");
  });

  it("lets the user in once the lock ran out, and a success clears the count", async () => {
    for (let i = 0; i < 3; i++) await refusal(() => lockout.attempt("ada@example.com", wrongPassword));
    clock.advance(15 * 60_000);
    expect(await lockout.attempt("ada@example.com", rightPassword)).toBe("signed in");
    expect(await failures.find("ada@example.com")).toBeNull();
  });

  it("counts only wrong credentials as failures: other errors pass through uncounted", async () => {
    const outage = new AppError("unavailable", "SERVICE_UNAVAILABLE", "database down");
    expect(await refusal(() => lockout.attempt("ada@example.com", () => Promise.reject(outage)))).toMatchObject({ kind: "unavailable" });
    expect(await failures.find("ada@example.com")).toBeNull();
    await refusal(() => lockout.attempt("ada@example.com", wrongPassword));
    expect(failures.rows.get("ada@example.com")).toEqual({ failures: 1, lockedUntil: null, lastFailureAt: at(0) });
  });

  it("lifts a lock (after a password reset)", async () => {
    for (let i = 0; i < 3; i++) await refusal(() => lockout.attempt("ada@example.com", wrongPassword));
    await lockout.lift("ada@example.com");
    expect(await lockout.attempt("ada@example.com", rightPassword)).toBe("signed in");
  });
});

describe("ResolveSession", () => {
  const timings = { expiresInSeconds: 30 * 24 * 3600, renewAfterSeconds: 24 * 3600 };
  let clock: FixedClock;
  let sessions: InMemorySessions;
  let resolve: ResolveSession;
  const store = (token: string, renewedMinutesAgo: number): AuthState => {
    const now = clock.now().getTime();
    const state: AuthState = {
      user: { id: "ada", name: "Ada", email: "ada@example.com", emailVerified: true, createdAt: at(0), updatedAt: at(0) },
      session: {
        id: `id-${token}`,
        token,
        userId: "ada",
        createdAt: at(0),
        updatedAt: at(0),
        expiresAt: new Date(now - minutes(renewedMinutesAgo) + timings.expiresInSeconds * 1000),
      },
    };
    sessions.stored.set(token, state);
    return state;
  };
  beforeEach(() => {
    clock = fixedClock(at(0));
    sessions = new InMemorySessions(clock, timings.expiresInSeconds * 1000);
    resolve = new ResolveSession(sessions, sessions, timings, clock);
  });

  it("answers a stored session that is not due for renewal itself, without the library", async () => {
    const fresh = store("fresh", 60);
    expect(await resolve.execute("fresh")).toEqual(fresh);
    expect(sessions.libraryLookUps).toEqual([]);
  });

  it("lets the library renew a session that is due, and decide about unknown tokens", async () => {
    const due = store("due", 25 * 60);
    const renewed = await resolve.execute("due");
    expect(renewed?.session.expiresAt.getTime()).toBeGreaterThan(due.session.expiresAt.getTime());
    expect(await resolve.execute("unknown")).toBeNull();
    expect(sessions.libraryLookUps).toEqual(["due", "unknown"]);
    expect(await resolve.execute(null)).toBeNull();
    expect(sessions.libraryLookUps).toHaveLength(2);
  });

  it("refuses an expired session: SESSION_EXPIRED for its token from then on, UNAUTHORIZED for others", async () => {
    store("old", 31 * 24 * 60);
    expect(await resolve.execute("old")).toBeNull();
    expect(await resolve.refusal("old")).toMatchObject({ kind: "unauthenticated", code: "SESSION_EXPIRED" });
    expect(await resolve.refusal("never-seen")).toMatchObject({ kind: "unauthenticated", code: "UNAUTHORIZED" });
    expect(await resolve.refusal(null)).toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("GetProviderAccessToken", () => {
  let tokens: InMemoryProviderTokens;
  let clock: FixedClock;
  beforeEach(() => {
    tokens = new InMemoryProviderTokens();
    clock = fixedClock(at(0));
  });
  const relink = { kind: "precondition", code: "GOOGLE_CALENDAR_AUTH_ERROR", details: [] };

  it("hands out a linked account's valid access token with its expiry and scopes", async () => {
    tokens.accounts.set("ada/google", { accountId: "acc-1", token: { accessToken: "ya29", expiresAt: at(30), scopes: ["openid"] } });
    expect(await new GetProviderAccessToken(tokens, clock).execute("ada", "google")).toEqual({
      accessToken: "ya29",
      expiresAt: at(30),
      scopes: ["openid"],
    });
  });

  it("answers NOT_FOUND without a linked account of that provider", async () => {
    expect(await refusal(() => new GetProviderAccessToken(tokens, clock).execute("ada", "google"))).toMatchObject({
      kind: "not_found",
      code: "NOT_FOUND",
    });
  });

  it("asks the user to link again when the refresh fails, or the token is expired or missing", async () => {
    const getToken = new GetProviderAccessToken(tokens, clock);
    tokens.accounts.set("ada/google", { accountId: "acc-1", token: "refresh-fails" });
    expect(await refusal(() => getToken.execute("ada", "google"))).toEqual(relink);
    tokens.accounts.set("ada/google", { accountId: "acc-1", token: { accessToken: "ya29", expiresAt: at(0), scopes: [] } });
    expect(await refusal(() => getToken.execute("ada", "google"))).toEqual(relink);
    tokens.accounts.set("ada/google", { accountId: "acc-1", token: { scopes: [] } });
    expect(await refusal(() => getToken.execute("ada", "google"))).toEqual(relink);
  });
});

describe("e-mail verification", () => {
  it("mails the link to an unconfirmed address, and answers EMAIL_ALREADY_VERIFIED once it is confirmed", async () => {
    const mail = new InMemoryEmailVerification();
    await new RequestEmailVerification(mail).execute({ email: "ada@example.com", emailVerified: false });
    expect(mail.sent).toEqual(["ada@example.com"]);
    expect(await refusal(() => new RequestEmailVerification(mail).execute({ email: "ada@example.com", emailVerified: true }))).toMatchObject({
      kind: "conflict",
      code: "EMAIL_ALREADY_VERIFIED",
    });
    expect(mail.sent).toHaveLength(1);
  });

  it("confirms with a link once: a second use is INVALID_TOKEN; an expired link says so", async () => {
    const mail = new InMemoryEmailVerification({ "expired-token": "TOKEN_EXPIRED" });
    const confirm = new ConfirmEmail(mail, mail);
    expect(await confirm.execute("good-token")).toBeNull();
    expect(await confirm.execute("good-token")).toBe("INVALID_TOKEN");
    expect(mail.verified).toEqual(["good-token"]);
    expect(await confirm.execute("expired-token")).toBe("TOKEN_EXPIRED");
  });
});
