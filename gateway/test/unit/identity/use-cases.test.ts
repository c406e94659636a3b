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
  const policy = { maxFailures: 3, lockMinutes: 15, delaySeconds: 2, accountMaxFailures: 6 };
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
  const ATTACKER = "203.0.113.7";
  const OWNER = "198.51.100.20";
  const delayed = (seconds: number) => ({
    kind: "rate_limited",
    code: "RATE_LIMITED",
    details: [{ field: "retryAfterSeconds", message: String(seconds) }],
  });
  const locked = (seconds: number) => ({
    kind: "forbidden",
    code: "ACCOUNT_LOCKED",
    details: [{ field: "retryAfterSeconds", message: String(seconds) }],
  });

  it("delays, then locks, one address's attempts at an account; the owner signs in from another address all along", async () => {
    const signIn = jest.fn(rightPassword);
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, wrongPassword))).toMatchObject({ code: "INVALID_CREDENTIALS" });
    // The next try must wait (the answer says how long), with the right password too: it is not even checked.
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, signIn))).toMatchObject(delayed(2));
    clock.advance(1000);
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, wrongPassword))).toMatchObject(delayed(1));
    clock.advance(1000);
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, wrongPassword))).toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, wrongPassword))).toMatchObject(delayed(4));
    clock.advance(4000);
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, wrongPassword))).toMatchObject(locked(900));
    clock.advance(5 * 60_000);
    expect(await refusal(() => lockout.attempt("ada@example.com", ATTACKER, signIn))).toMatchObject(locked(600));
    expect(signIn).not.toHaveBeenCalled();

    expect(await lockout.attempt("ada@example.com", OWNER, rightPassword)).toBe("signed in");
    expect(await lockout.attempt("bo@example.com", ATTACKER, rightPassword)).toBe("signed in");
  });

  it("lets the address in once the lock ran out, and a success clears its count", async () => {
    for (let i = 0; i < 3; i++) {
      await refusal(() => lockout.attempt("ada@example.com", OWNER, wrongPassword));
      clock.advance(10_000);
    }
    expect(failures.pair("ada@example.com", OWNER)).toMatchObject({ failures: 3, lockedUntil: new Date(at(0).getTime() + 20_000 + minutes(15)) });
    clock.advance(minutes(15));
    expect(await lockout.attempt("ada@example.com", OWNER, rightPassword)).toBe("signed in");
    expect(failures.pair("ada@example.com", OWNER)).toEqual({ failures: 0, lockedUntil: null, lastFailureAt: null, known: true });
  });

  it("counts only wrong credentials as failures: other errors put the count back", async () => {
    const outage = new AppError("unavailable", "SERVICE_UNAVAILABLE", "database down");
    expect(await refusal(() => lockout.attempt("ada@example.com", OWNER, () => Promise.reject(outage)))).toMatchObject({ kind: "unavailable" });
    expect(failures.pair("ada@example.com", OWNER)).toBeUndefined();
    expect(await refusal(() => lockout.attempt("ada@example.com", OWNER, () => Promise.reject(outage)))).toMatchObject({ kind: "unavailable" });
    await refusal(() => lockout.attempt("ada@example.com", OWNER, wrongPassword));
    expect(failures.pair("ada@example.com", OWNER)).toEqual({ failures: 1, lockedUntil: null, lastFailureAt: at(0), known: false });
    expect(failures.accounts.get("ada@example.com")).toEqual({ windowStartedAt: at(0), failures: 1 });
  });

  it("counts an attempt before its password is checked: parallel attempts from one address cannot outrun the delay", async () => {
    const checks: (() => void)[] = [];
    const slowWrongPassword = () => new Promise<never>((_resolve, reject) => checks.push(() => reject(invalidCredentials())));
    const attempts = Array.from({ length: 5 }, () => refusal(() => lockout.attempt("ada@example.com", ATTACKER, slowWrongPassword)));
    // Every attempt has been answered or has reached its password check.
    await new Promise((resolve) => setImmediate(resolve));
    checks.forEach((check) => check());
    const codes = (await Promise.all(attempts)).map((error) => (error as AppError).code).sort();
    expect(codes).toEqual(["INVALID_CREDENTIALS", "RATE_LIMITED", "RATE_LIMITED", "RATE_LIMITED", "RATE_LIMITED"]);
  });

  it("bounds many addresses: past the account-wide limit only addresses the account signed in from may try, until the window ends", async () => {
    expect(await lockout.attempt("ada@example.com", OWNER, rightPassword)).toBe("signed in");
    for (let bot = 1; bot <= 6; bot++) {
      expect(await refusal(() => lockout.attempt("ada@example.com", `192.0.2.${bot}`, wrongPassword))).toMatchObject({ code: "INVALID_CREDENTIALS" });
    }
    const signIn = jest.fn(rightPassword);
    expect(await refusal(() => lockout.attempt("ada@example.com", "192.0.2.99", signIn))).toMatchObject(locked(900));
    expect(signIn).not.toHaveBeenCalled();
    // The owner's usual address still gets in; another account is not touched.
    expect(await lockout.attempt("ada@example.com", OWNER, rightPassword)).toBe("signed in");
    expect(await lockout.attempt("bo@example.com", "192.0.2.99", rightPassword)).toBe("signed in");
    clock.advance(minutes(15));
    expect(await lockout.attempt("ada@example.com", "192.0.2.99", rightPassword)).toBe("signed in");
  });

  it("lifts every lock and the account-wide count (after a password reset); known addresses stay known", async () => {
    await lockout.attempt("ada@example.com", OWNER, rightPassword);
    for (let i = 0; i < 3; i++) {
      await refusal(() => lockout.attempt("ada@example.com", ATTACKER, wrongPassword));
      clock.advance(10_000);
    }
    for (let bot = 1; bot <= 6; bot++) await refusal(() => lockout.attempt("ada@example.com", `192.0.2.${bot}`, wrongPassword));
    await lockout.lift("ada@example.com");
    expect(await lockout.attempt("ada@example.com", ATTACKER, rightPassword)).toBe("signed in");
    expect(await lockout.attempt("ada@example.com", "192.0.2.99", rightPassword)).toBe("signed in");
    expect(failures.pair("ada@example.com", OWNER)?.known).toBe(true);
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
