import {
  Browser,
  cookieFrom,
  httpClient,
  startOidcProvider,
  startTestStack,
  uniqueSuffix,
  type LocalOidcProvider,
  type TestStack,
} from "@study/testkit";
import { Client } from "pg";

/** GET /api/account/details, POST /api/account/unlink and /revoke-session, end to end. */
describe("account endpoints", () => {
  let provider: LocalOidcProvider;
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let db: Client;

  beforeAll(async () => {
    provider = await startOidcProvider();
    stack = await startTestStack({
      // Accounts and sessions are the gateway's own: no service is needed.
      services: [],
      gatewayEnv: {
        GOOGLE_ISSUER_URL: provider.issuer,
        GOOGLE_CLIENT_ID: provider.clientId,
        GOOGLE_CLIENT_SECRET: provider.clientSecret,
        AUTH_RATE_LIMIT_PER_MINUTE: "1000",
        // Long enough that no answer outruns it on a loaded machine: the tests read the wait, they do not sit it out.
        LOCKOUT_DELAY_SECONDS: "60",
      },
    });
    api = httpClient(stack.gatewayUrl);
    db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stopAll();
    await provider?.close();
  });

  const password = "correct horse battery";

  async function signUp(name: string, userAgent = `jest-${name}`) {
    const email = `${name.toLowerCase()}-${uniqueSuffix()}@example.com`;
    const response = await api("POST", "/api/auth/signup", { body: { name, email, password }, headers: { "user-agent": userAgent } });
    expect(response.status).toBe(200);
    return {
      email,
      userId: response.body.user.id as string,
      token: response.body.session.token as string,
      sessionId: response.body.session.id as string,
      /** The session cookie's value as the gateway signed it (`<token>.<signature>`, URL-encoded). */
      signedToken: cookieFrom(response.headers, "better-auth.session_token")!.split(/=(.*)/s)[1],
    };
  }

  /** Signs in through the provider (desktop flow) and returns the app's Bearer token. */
  async function signInWithGoogle(who: { sub: string; email: string; name: string }): Promise<string> {
    provider.signInAs(who);
    const { body } = await api("POST", "/api/auth/sign-in/social", { body: { provider: "google", flow: "desktop" } });
    const landing = await new Browser([stack.gatewayUrl, provider.issuer]).open(body.url);
    const value = new URL(landing.url).searchParams.get("session_token");
    if (!value) throw new Error(`sign-in ended at ${landing.url}`);
    return value.slice(0, value.indexOf("."));
  }

  /** An e-mail user with a confirmed address and Google linked to it: two ways to sign in. */
  async function userWithTwoAccounts(name: string) {
    const user = await signUp(name);
    await db.query(`UPDATE "user" SET "emailVerified" = true WHERE id = $1`, [user.userId]);
    const googleToken = await signInWithGoogle({ sub: `google-${uniqueSuffix()}`, email: user.email, name });
    return { ...user, googleToken };
  }

  const details = async (token: string) => {
    const response = await api("GET", "/api/account/details", { token });
    expect(response.status).toBe(200);
    return response.body.data as {
      accounts: { id: string; providerId: string; accountId: string; accessToken: boolean; refreshToken: boolean }[];
      sessions: { id: string }[];
    };
  };

  it("lists the linked accounts (token presence only) and the active sessions, without any token", async () => {
    const user = await userWithTwoAccounts("Ada");
    const response = await api("GET", "/api/account/details", { token: user.token });
    expect(response.body).toEqual({
      success: true,
      message: "Account details",
      data: {
        accounts: [
          {
            id: expect.any(String),
            providerId: "credential",
            accountId: user.userId,
            createdAt: expect.any(String),
            accessToken: false,
            refreshToken: false,
          },
          {
            id: expect.any(String),
            providerId: "google",
            accountId: expect.stringMatching(/^google-/),
            createdAt: expect.any(String),
            accessToken: true,
            refreshToken: true,
          },
        ],
        sessions: [
          expect.objectContaining({ userAgent: "test-browser" }),
          {
            id: user.sessionId,
            createdAt: expect.any(String),
            updatedAt: expect.any(String),
            expiresAt: expect.any(String),
            ipAddress: expect.any(String),
            userAgent: "jest-Ada",
          },
        ],
      },
    });
    expect(JSON.stringify(response.body)).not.toContain(user.token);
    expect(JSON.stringify(response.body)).not.toContain(user.googleToken);
  });

  it("unlinks an account, but never the last way to sign in", async () => {
    const user = await userWithTwoAccounts("Bo");
    const [credential, google] = (await details(user.token)).accounts;

    const unlinked = await api("POST", "/api/account/unlink", { token: user.token, body: { accountId: google.id } });
    expect(unlinked.status).toBe(200);
    expect(unlinked.body).toEqual({ success: true, message: "Account unlinked" });
    expect((await details(user.token)).accounts.map((account) => account.providerId)).toEqual(["credential"]);

    const last = await api("POST", "/api/account/unlink", { token: user.token, body: { accountId: credential.id } });
    expect(last.status).toBe(400);
    expect(last.body).toEqual({ success: false, error: expect.stringMatching(/only way to sign in/), code: "LAST_SIGN_IN_METHOD" });
    expect((await api("POST", "/api/auth/signin", { body: { email: user.email, password } })).status).toBe(200);
  });

  it("keeps one way to sign in when both are unlinked at the same time", async () => {
    const user = await userWithTwoAccounts("Ben");
    const accounts = (await details(user.token)).accounts;
    const results = await Promise.all(
      accounts.map((account) => api("POST", "/api/account/unlink", { token: user.token, body: { accountId: account.id } })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 400]);
    expect((await details(user.token)).accounts).toHaveLength(1);
  });

  it("refuses to unlink the only account of a provider-only user", async () => {
    const token = await signInWithGoogle({ sub: `google-${uniqueSuffix()}`, email: `cy-${uniqueSuffix()}@gmail.example`, name: "Cy" });
    const [only] = (await details(token)).accounts;
    expect(only.providerId).toBe("google");
    const refused = await api("POST", "/api/account/unlink", { token, body: { accountId: only.id } });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("LAST_SIGN_IN_METHOD");
  });

  it("answers 404 for another user's account or an unknown one, and 400 without an accountId", async () => {
    const owner = await userWithTwoAccounts("Dot");
    const [, ownersGoogle] = (await details(owner.token)).accounts;
    const stranger = await userWithTwoAccounts("Eli");

    for (const accountId of [ownersGoogle.id, "no-such-account"]) {
      const response = await api("POST", "/api/account/unlink", { token: stranger.token, body: { accountId } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: "Account not found", code: "NOT_FOUND" });
    }
    expect((await details(owner.token)).accounts).toHaveLength(2);
    const missing = await api("POST", "/api/account/unlink", { token: stranger.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual([{ field: "accountId", message: expect.any(String) }]);
  });

  it("revokes one of the caller's sessions: its token answers 401 at once, the others keep working", async () => {
    const user = await signUp("Fay");
    const laptop = await api("POST", "/api/auth/signin", { body: { email: user.email, password }, headers: { "user-agent": "laptop" } });
    const laptopToken = laptop.body.session.token as string;
    expect((await details(user.token)).sessions.map((session) => session.id)).toContain(laptop.body.session.id);

    const revoked = await api("POST", "/api/account/revoke-session", { token: user.token, body: { sessionId: laptop.body.session.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: "Session revoked" });
    const refused = await api("GET", "/api/auth/session", { token: laptopToken });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("UNAUTHORIZED");
    expect((await api("GET", "/api/auth/session", { token: user.token })).status).toBe(200);
    expect((await details(user.token)).sessions.map((session) => session.id)).toEqual([user.sessionId]);
  });

  it("revokes the caller's current session too (and clears its cookie)", async () => {
    const user = await signUp("Gus");
    const response = await api("POST", "/api/account/revoke-session", { token: user.token, body: { sessionId: user.sessionId } });
    expect(response.status).toBe(200);
    expect(cookieFrom(response.headers, "better-auth.session_token")).toBe("better-auth.session_token=");
    expect((await api("GET", "/api/account/details", { token: user.token })).status).toBe(401);
  });

  it("revokes a session for a caller signed in by the spec's session_token cookie", async () => {
    const user = await signUp("Jade");
    const phone = await api("POST", "/api/auth/signin", { body: { email: user.email, password }, headers: { "user-agent": "phone" } });
    const cookie = `session_token=${user.signedToken}`;
    const revoked = await api("POST", "/api/account/revoke-session", { cookie, body: { sessionId: phone.body.session.id } });
    expect(revoked.status).toBe(200);
    expect((await api("GET", "/api/auth/session", { token: phone.body.session.token })).status).toBe(401);
    const own = await api("POST", "/api/account/revoke-session", { cookie, body: { sessionId: user.sessionId } });
    expect(own.status).toBe(200);
    expect((await api("GET", "/api/account/details", { cookie })).status).toBe(401);
  });

  it("takes a spec-named session cookie only with the value the gateway signed: a planted raw token is no session", async () => {
    // A page on a sibling subdomain can set cookies for the whole domain; with its own account's raw token (which any
    // sign-in answer shows) it would sign a visitor into that account.
    const attacker = await signUp("Mallory");
    for (const cookie of [
      `session_token=${attacker.token}`,
      `study.session-token=${attacker.token}`,
      `__Secure-study.session-token=${attacker.token}`,
      `study.session-token=${encodeURIComponent(`${attacker.token}.${attacker.userId}`)}`,
    ]) {
      for (const path of ["/api/auth/session", "/api/account/details"]) {
        const planted = await api("GET", path, { cookie });
        expect({ cookie, path, status: planted.status, code: planted.body.code }).toEqual({ cookie, path, status: 401, code: "UNAUTHORIZED" });
      }
    }
    // The signed value, and a raw token under a __Host- name (which only the gateway's own host can set), are the session.
    for (const cookie of [
      `session_token=${attacker.signedToken}`,
      `study.session-token=${attacker.signedToken}`,
      `__Host-study.session-token=${attacker.token}`,
    ]) {
      const session = await api("GET", "/api/auth/session", { cookie });
      expect({ cookie, user: session.body.user?.id }).toEqual({ cookie, user: attacker.userId });
    }
  });

  describe("failed sign-ins count per account and client address", () => {
    // The stack trusts X-Forwarded-For from loopback (TRUST_PROXY=loopback): these stand for two clients.
    const ATTACKER = { "x-forwarded-for": "203.0.113.7" };
    const OWNER = { "x-forwarded-for": "198.51.100.20" };
    const signIn = (email: string, from: Record<string, string>, secret = password) =>
      api("POST", "/api/auth/signin", { body: { email, password: secret }, headers: from });
    /** As if the wait after the address's last failure had passed. */
    const waitOut = (email: string) =>
      db.query(`UPDATE sign_in_attempt SET last_failure_at = last_failure_at - interval '1 hour' WHERE email = $1`, [email]);

    it("an attacker's 10 wrong passwords from one address do not stop the owner signing in from another", async () => {
      const owner = await signUp("Olga");
      const first = await signIn(owner.email, ATTACKER, "wrong password!");
      expect(first.status).toBe(401);
      expect(first.body.code).toBe("INVALID_CREDENTIALS");
      // The next try from that address must wait, and the answer says how long; the password is not even checked.
      const early = await signIn(owner.email, ATTACKER);
      expect(early.status).toBe(429);
      expect(early.body).toMatchObject({ success: false, code: "RATE_LIMITED", action: "RETRY_LATER" });
      expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(50);
      expect(Number(early.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      const statuses: number[] = [];
      for (let attempt = 3; attempt <= 10; attempt++) {
        await waitOut(owner.email);
        const wrong = await signIn(owner.email, ATTACKER, "wrong password!");
        statuses.push(wrong.status);
        if (wrong.status === 403) expect(wrong.body).toMatchObject({ code: "ACCOUNT_LOCKED", action: "RETRY_LATER" });
      }
      // Failures 2 to 4 are refused as such, the 5th locks the pair for LOCKOUT_MINUTES, whatever comes next.
      expect(statuses).toEqual([401, 401, 401, 403, 403, 403, 403, 403]);
      expect((await signIn(owner.email, ATTACKER)).body.code).toBe("ACCOUNT_LOCKED");

      const fromHome = await signIn(owner.email, OWNER);
      expect(fromHome.status).toBe(200);
      expect(fromHome.body.session.ipAddress).toBe("198.51.100.20");
    });

    it("bounds many addresses: past LOCKOUT_ACCOUNT_MAX_FAILURES only addresses the account signed in from may try", async () => {
      const owner = await signUp("Pete");
      expect((await signIn(owner.email, OWNER)).status).toBe(200);
      // One wrong password each from 20 addresses (the default account-wide limit per LOCKOUT_MINUTES).
      for (let bot = 1; bot <= 20; bot++) {
        expect((await signIn(owner.email, { "x-forwarded-for": `192.0.2.${bot}` }, "wrong password!")).status).toBe(401);
      }
      const newcomer = await signIn(owner.email, { "x-forwarded-for": "192.0.2.200" });
      expect(newcomer.status).toBe(403);
      expect(newcomer.body).toMatchObject({ code: "ACCOUNT_LOCKED", action: "RETRY_LATER" });
      expect((await signIn(owner.email, OWNER)).status).toBe(200);
    });
  });

  it("answers 404 for another user's session or an unknown one, leaving it alive", async () => {
    const owner = await signUp("Hana");
    const stranger = await signUp("Ira");
    for (const sessionId of [owner.sessionId, "no-such-session"]) {
      const response = await api("POST", "/api/account/revoke-session", { token: stranger.token, body: { sessionId } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ success: false, error: "Session not found", code: "NOT_FOUND" });
    }
    expect((await api("GET", "/api/auth/session", { token: owner.token })).status).toBe(200);
  });

  it("answers 401 UNAUTHORIZED without a session", async () => {
    for (const [method, path] of [
      ["GET", "/api/account/details"],
      ["POST", "/api/account/unlink"],
      ["POST", "/api/account/revoke-session"],
    ]) {
      const response = await api(method, path, { body: method === "POST" ? { accountId: "x", sessionId: "x" } : undefined });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("UNAUTHORIZED");
    }
  });
});
