import { gateway } from "@study/contracts";
import { createClient } from "@study/grpc";
import {
  Browser,
  httpClient,
  signCallsAs,
  startOidcProvider,
  startTestStack,
  uniqueSuffix,
  type LocalOidcProvider,
  type ProviderUser,
  type TestStack,
} from "@study/testkit";
import { Client } from "pg";

const CLIENT_URL = "http://localhost:5173";
const ADMIN_ORIGIN = "http://admin.localhost:5174";
const CALENDAR_SCOPES = ["https://www.googleapis.com/auth/calendar.readonly", "https://www.googleapis.com/auth/calendar.events"];

const identityClient = (address: string) => createClient(gateway.IdentityServiceClient, gateway.IdentityServiceService, address);

/**
 * Sign-in with an identity provider, end to end: the built gateway against a local OpenID Connect provider,
 * with real HTTP redirects followed by a cookie-keeping test browser.
 */
describe("identity-provider sign-in (Google, against a local OpenID Connect provider)", () => {
  let provider: LocalOidcProvider;
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let db: Client;
  let identity: ReturnType<typeof identityClient>;

  beforeAll(async () => {
    provider = await startOidcProvider();
    stack = await startTestStack({
      // Sign-in and the identity gRPC API are the gateway's own: no service is needed.
      services: [],
      gatewayEnv: {
        GOOGLE_ISSUER_URL: provider.issuer,
        GOOGLE_CLIENT_ID: provider.clientId,
        GOOGLE_CLIENT_SECRET: provider.clientSecret,
        TRUSTED_ORIGINS: ADMIN_ORIGIN,
        AUTH_RATE_LIMIT_PER_MINUTE: "1000",
      },
    });
    api = httpClient(stack.gatewayUrl);
    db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
    // IdentityService answers the calendar service only: the test asks as it.
    signCallsAs(stack.internalAuth, "calendar");
    identity = identityClient(stack.gatewayGrpcAddress);
  }, 120_000);

  afterAll(async () => {
    identity?.close();
    await db?.end();
    await stack?.stopAll();
    await provider?.close();
  });

  const newBrowser = () => new Browser([stack.gatewayUrl, provider.issuer]);
  const person = (name: string): ProviderUser => {
    const suffix = uniqueSuffix();
    return { sub: `google-${suffix}`, email: `${name.toLowerCase()}-${suffix}@gmail.example`, name };
  };

  /** Consents at the provider as `who` and follows every redirect until the browser leaves the gateway. */
  async function signInWithGoogle(who: ProviderUser, flow: "web" | "desktop" | "mobile" = "web", browser = newBrowser()) {
    provider.signInAs(who);
    let start = `${stack.gatewayUrl}/api/auth/signin/google`;
    if (flow !== "web") {
      const response = await api("POST", "/api/auth/sign-in/social", { body: { provider: "google", flow } });
      expect(response.status).toBe(200);
      start = response.body.url;
    }
    return { navigation: await browser.open(start), browser };
  }

  const sessionCookie = (browser: Browser) => {
    const value = browser.cookie(stack.gatewayUrl, "better-auth.session_token");
    return value ? `better-auth.session_token=${value}` : undefined;
  };

  async function accountRow(email: string) {
    const { rows } = await db.query(`SELECT a.* FROM account a JOIN "user" u ON u.id = a."userId" WHERE u.email = $1 AND a."providerId" = 'google'`, [
      email,
    ]);
    return rows;
  }

  const oauthError = (url: string) => {
    const parsed = new URL(url);
    return {
      at: `${parsed.protocol}//${parsed.host}${parsed.pathname}`,
      code: parsed.searchParams.get("code"),
      reason: parsed.searchParams.get("reason"),
    };
  };

  it("web: sends the browser to the provider with PKCE, state, nonce, offline access and the calendar scopes; back signed in", async () => {
    const alice = person("Alice");
    const { navigation, browser } = await signInWithGoogle(alice);

    expect(navigation.url.replace(/\/$/, "")).toBe(CLIENT_URL);
    expect(navigation.visited.map((url) => new URL(url).origin + new URL(url).pathname)).toEqual([
      `${stack.gatewayUrl}/api/auth/signin/google`,
      `${provider.issuer}/authorize`,
      `${stack.gatewayUrl}/api/auth/callback/google`,
    ]);
    const request = provider.authorizations.at(-1)!;
    expect(request).toMatchObject({
      clientId: provider.clientId,
      redirectUri: `${stack.gatewayUrl}/api/auth/callback/google`,
      codeChallengeMethod: "S256",
      accessType: "offline",
      prompt: "consent",
    });
    expect(request.scope).toEqual(expect.arrayContaining(["openid", "email", "profile", ...CALENDAR_SCOPES]));
    expect(request.state).toMatch(/.{16,}/);
    expect(request.nonce).toMatch(/.{16,}/);
    expect(request.codeChallenge).toMatch(/^[\w-]{43}$/);

    const session = await api("GET", "/api/auth/session", { cookie: sessionCookie(browser) });
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ email: alice.email, name: alice.name, emailVerified: true });
    expect(session.body.session.userAgent).toBe("test-browser");
  });

  it("stores the provider's access and refresh tokens encrypted, with the granted scopes", async () => {
    const bob = person("Bob");
    await signInWithGoogle(bob);
    const issued = provider.issued.filter((tokens) => tokens.sub === bob.sub);
    expect(issued).toHaveLength(1);
    expect(issued[0].refreshToken).toBeTruthy();

    const [account] = await accountRow(bob.email);
    expect(account).toMatchObject({ providerId: "google", accountId: bob.sub });
    for (const [stored, plain] of [
      [account.accessToken, issued[0].accessToken],
      [account.refreshToken, issued[0].refreshToken!],
    ]) {
      expect(stored).toEqual(expect.any(String));
      expect(stored).not.toContain(plain);
      expect(stored).not.toContain(plain.split(".")[1]);
    }
    expect(account.scope.split(",")).toEqual(expect.arrayContaining(CALENDAR_SCOPES));
  });

  it("web: returns to a callbackURL on a trusted origin, and refuses one on any other origin", async () => {
    const carol = person("Carol");
    provider.signInAs(carol);
    const browser = newBrowser();
    const trusted = await browser.open(`${stack.gatewayUrl}/api/auth/signin/google?callbackURL=${encodeURIComponent(`${ADMIN_ORIGIN}/welcome`)}`);
    expect(trusted.url).toBe(`${ADMIN_ORIGIN}/welcome`);
    expect(sessionCookie(browser)).toBeDefined();

    const evil = await api("GET", `/api/auth/signin/google?callbackURL=${encodeURIComponent("https://evil.example.com/steal")}`);
    expect(evil.status).toBe(400);
    expect(evil.body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "callbackURL", message: "must be on a trusted origin" }] });
    const evilPost = await api("POST", "/api/auth/sign-in/social", { body: { provider: "google", callbackURL: "https://evil.example.com/" } });
    expect(evilPost.status).toBe(400);
  });

  it.each(["desktop", "mobile"] as const)(
    "%s: the URL from POST sign-in/social ends at studyapp://auth/callback with <token>.<userId>; the token works as a Bearer token",
    async (flow) => {
      const dan = person(`Dan-${flow}`);
      const { navigation, browser } = await signInWithGoogle(dan, flow);

      const landing = new URL(navigation.url);
      expect(`${landing.protocol}//${landing.host}${landing.pathname}`).toBe("studyapp://auth/callback");
      const raw = navigation.url.split("session_token=")[1];
      expect(raw).toBe(encodeURIComponent(decodeURIComponent(raw)));
      const value = decodeURIComponent(raw);
      const token = value.slice(0, value.indexOf("."));
      const userId = value.slice(value.indexOf(".") + 1);

      const session = await api("GET", "/api/auth/session", { token });
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({ id: userId, email: dan.email });
      // The session now belongs to the app: the system browser keeps no cookie of it.
      expect(sessionCookie(browser)).toBeUndefined();
    },
  );

  it("POST sign-in/social with only {provider}, as the apps send it, ends in the app; flow web or a callbackURL ends on the web", async () => {
    const ola = person("Ola");
    provider.signInAs(ola);
    const started = await api("POST", "/api/auth/sign-in/social", { body: { provider: "google" } });
    expect(started.status).toBe(200);
    expect(new URL(started.body.url).searchParams.get("flow")).toBe("desktop");
    const appBrowser = newBrowser();
    const landing = new URL((await appBrowser.open(started.body.url)).url);
    expect(`${landing.protocol}//${landing.host}${landing.pathname}`).toBe("studyapp://auth/callback");
    const value = landing.searchParams.get("session_token")!;
    const session = await api("GET", "/api/auth/session", { token: value.slice(0, value.indexOf(".")) });
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ id: value.slice(value.indexOf(".") + 1), email: ola.email });
    expect(sessionCookie(appBrowser)).toBeUndefined();

    for (const [body, destination] of [
      [{ provider: "google", flow: "web" }, CLIENT_URL],
      [{ provider: "google", callbackURL: `${ADMIN_ORIGIN}/welcome` }, `${ADMIN_ORIGIN}/welcome`],
    ] as const) {
      provider.signInAs(person("Pia"));
      const web = await api("POST", "/api/auth/sign-in/social", { body });
      expect(web.status).toBe(200);
      expect(new URL(web.body.url).searchParams.get("flow")).toBe("web");
      const webBrowser = newBrowser();
      expect((await webBrowser.open(web.body.url)).url.replace(/\/$/, "")).toBe(destination);
      expect(sessionCookie(webBrowser)).toBeDefined();
    }

    const mixed = await api("POST", "/api/auth/sign-in/social", {
      body: { provider: "google", flow: "mobile", callbackURL: `${ADMIN_ORIGIN}/welcome` },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "callbackURL", message: "is only used by the web flow" }] });
  });

  it("hands a session to the app only at the end of an app flow started in that browser", async () => {
    const { browser } = await signInWithGoogle(person("Kim"));
    const webCookie = sessionCookie(browser);
    // A page sending a signed-in browser straight to the hand-over must not push its web session to the app.
    const lured = await browser.open(`${stack.gatewayUrl}/api/auth/app-complete?flow=desktop&handover=guessed`);
    expect(oauthError(lured.url)).toEqual({ at: "studyapp://auth/callback", code: "OAUTH_ERROR", reason: "handover_not_started" });
    expect(lured.url).not.toContain("session_token");
    expect(sessionCookie(browser)).toBe(webCookie);
  });

  it("signs a returning user in to the same user and account", async () => {
    const erin = person("Erin");
    const first = await signInWithGoogle(erin);
    const second = await signInWithGoogle(erin);
    const firstUser = await api("GET", "/api/auth/session", { cookie: sessionCookie(first.browser) });
    const secondUser = await api("GET", "/api/auth/session", { cookie: sessionCookie(second.browser) });
    expect(secondUser.body.user.id).toBe(firstUser.body.user.id);
    expect(secondUser.body.session.id).not.toBe(firstUser.body.session.id);
    expect(await accountRow(erin.email)).toHaveLength(1);
  });

  it("links the provider to an existing e-mail user once the address is confirmed, and refuses to before", async () => {
    const frank = person("Frank");
    const signUp = await api("POST", "/api/auth/signup", { body: { name: "Frank", email: frank.email, password: "correct horse battery" } });
    expect(signUp.status).toBe(200);

    // An unconfirmed local address could belong to someone else who signed up with it: no implicit link.
    const refused = await signInWithGoogle(frank);
    expect(oauthError(refused.navigation.url)).toEqual({ at: `${CLIENT_URL}/auth/error`, code: "OAUTH_ERROR", reason: "account_not_linked" });
    expect(await accountRow(frank.email)).toHaveLength(0);

    await db.query(`UPDATE "user" SET "emailVerified" = true WHERE email = $1`, [frank.email]);
    const linked = await signInWithGoogle(frank);
    const session = await api("GET", "/api/auth/session", { cookie: sessionCookie(linked.browser) });
    expect(session.body.user.id).toBe(signUp.body.user.id);
    const { rows } = await db.query(`SELECT "providerId" FROM account WHERE "userId" = $1 ORDER BY "providerId"`, [signUp.body.user.id]);
    expect(rows.map((row) => row.providerId)).toEqual(["credential", "google"]);
    // The password still works.
    expect((await api("POST", "/api/auth/signin", { body: { email: frank.email, password: "correct horse battery" } })).status).toBe(200);
  });

  describe("OAUTH_ERROR", () => {
    it("when the user denies consent: to the client's error page (web) or the app's callback (desktop)", async () => {
      provider.denyNextConsent();
      const web = await signInWithGoogle(person("Gina"));
      expect(oauthError(web.navigation.url)).toEqual({ at: `${CLIENT_URL}/auth/error`, code: "OAUTH_ERROR", reason: "access_denied" });
      expect(sessionCookie(web.browser)).toBeUndefined();

      provider.denyNextConsent();
      const desktop = await signInWithGoogle(person("Gina"), "desktop");
      expect(oauthError(desktop.navigation.url)).toEqual({ at: "studyapp://auth/callback", code: "OAUTH_ERROR", reason: "access_denied" });
    });

    it("when the code exchange fails", async () => {
      provider.failNextTokenExchange();
      const { navigation, browser } = await signInWithGoogle(person("Hal"));
      expect(oauthError(navigation.url)).toEqual({ at: `${CLIENT_URL}/auth/error`, code: "OAUTH_ERROR", reason: "invalid_code" });
      expect(sessionCookie(browser)).toBeUndefined();
    });

    it("when the state is missing, unknown, or comes back in another browser than the one that started", async () => {
      const missing = await newBrowser().open(`${stack.gatewayUrl}/api/auth/callback/google?code=anything`);
      expect(oauthError(missing.url)).toMatchObject({ code: "OAUTH_ERROR", reason: "state_not_found" });
      const forged = await newBrowser().open(`${stack.gatewayUrl}/api/auth/callback/google?code=anything&state=forged-state`);
      expect(oauthError(forged.url)).toMatchObject({ code: "OAUTH_ERROR", reason: "state_mismatch" });

      // Login CSRF: a victim's browser completing an attacker's authorization request lacks its state cookie.
      provider.signInAs(person("Ivy"));
      const started = await fetch(`${stack.gatewayUrl}/api/auth/signin/google`, { redirect: "manual" });
      expect(started.status).toBe(302);
      const victim = newBrowser();
      const elsewhere = await victim.open(started.headers.get("location")!);
      expect(oauthError(elsewhere.url)).toEqual({ at: `${CLIENT_URL}/auth/error`, code: "OAUTH_ERROR", reason: "state_mismatch" });
      expect(sessionCookie(victim)).toBeUndefined();
    });

    it("for an unknown provider: a redirect in the browser, the error envelope for the JSON call", async () => {
      const web = await newBrowser().open(`${stack.gatewayUrl}/api/auth/signin/myspace`);
      expect(oauthError(web.url)).toEqual({ at: `${CLIENT_URL}/auth/error`, code: "OAUTH_ERROR", reason: "oauth_provider_not_found" });
      const mobile = await newBrowser().open(`${stack.gatewayUrl}/api/auth/signin/myspace?flow=mobile`);
      expect(oauthError(mobile.url)).toEqual({ at: "studyapp://auth/callback", code: "OAUTH_ERROR", reason: "oauth_provider_not_found" });

      const json = await api("POST", "/api/auth/sign-in/social", { body: { provider: "myspace", flow: "desktop" } });
      expect(json.status).toBe(400);
      expect(json.body).toEqual({ success: false, error: 'Sign-in with "myspace" is not available', code: "OAUTH_ERROR" });
    });
  });

  it("the local provider enforces PKCE, so a completed sign-in proves the gateway sent the right verifier", async () => {
    provider.signInAs(person("Pat"));
    const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"; // S256 of the RFC 7636 example verifier
    const redirectUri = `${stack.gatewayUrl}/api/auth/callback/google`;
    const authorize = async () => {
      const query = new URLSearchParams({
        client_id: provider.clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "openid email",
        state: "s",
        code_challenge: challenge,
        code_challenge_method: "S256",
      });
      const response = await fetch(`${provider.issuer}/authorize?${query}`, { redirect: "manual" });
      return new URL(response.headers.get("location")!).searchParams.get("code")!;
    };
    const exchange = (code: string, verifier: string) =>
      fetch(`${provider.issuer}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: provider.clientId,
          client_secret: provider.clientSecret,
        }),
      });
    const wrong = await exchange(await authorize(), "not-the-verifier-not-the-verifier-not-the-verifier");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
    expect((await exchange(await authorize(), "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).status).toBe(200);
  });

  describe("IdentityService.GetProviderAccessToken (gRPC)", () => {
    async function linkedUser(name: string) {
      const who = person(name);
      const { browser } = await signInWithGoogle(who);
      const session = await api("GET", "/api/auth/session", { cookie: sessionCookie(browser) });
      return { who, userId: session.body.user.id as string };
    }
    const expireStoredAccessToken = (userId: string) =>
      db.query(`UPDATE account SET "accessTokenExpiresAt" = now() - interval '1 minute' WHERE "userId" = $1 AND "providerId" = 'google'`, [userId]);

    it("returns the stored token while it is valid, and a refreshed one (stored encrypted) once it has expired", async () => {
      const { who, userId } = await linkedUser("Quinn");
      const [first] = provider.issued.filter((tokens) => tokens.sub === who.sub);

      const fresh = await identity.getProviderAccessToken({ userId, provider: "google" });
      expect(fresh.accessToken).toBe(first.accessToken);
      expect(fresh.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
      expect(fresh.scopes).toEqual(expect.arrayContaining(["openid", ...CALENDAR_SCOPES]));

      await expireStoredAccessToken(userId);
      const refreshed = await identity.getProviderAccessToken({ userId, provider: "google" });
      const refreshGrants = provider.issued.filter((tokens) => tokens.sub === who.sub && tokens.grant === "refresh_token");
      expect(refreshGrants).toHaveLength(1);
      expect(refreshed.accessToken).toBe(refreshGrants[0].accessToken);
      expect(refreshed.accessToken).not.toBe(first.accessToken);
      expect(refreshed.expiresAt!.getTime()).toBeGreaterThan(Date.now());

      const [account] = await accountRow(who.email);
      expect(account.accessToken).not.toContain(refreshed.accessToken.split(".")[1]);
      expect(account.accessTokenExpiresAt.getTime()).toBeGreaterThan(Date.now());
      // The refreshed token is kept: asking again does not refresh again.
      expect((await identity.getProviderAccessToken({ userId, provider: "google" })).accessToken).toBe(refreshed.accessToken);
      expect(provider.issued.filter((tokens) => tokens.sub === who.sub && tokens.grant === "refresh_token")).toHaveLength(1);
    });

    it("answers FAILED_PRECONDITION GOOGLE_CALENDAR_AUTH_ERROR (RELINK_GOOGLE_ACCOUNT) when the provider refuses the refresh", async () => {
      const { who, userId } = await linkedUser("Rae");
      provider.revokeRefreshTokens(who.sub);
      await expireStoredAccessToken(userId);
      await expect(identity.getProviderAccessToken({ userId, provider: "google" })).rejects.toMatchObject({
        kind: "precondition",
        code: "GOOGLE_CALENDAR_AUTH_ERROR",
        action: "RELINK_GOOGLE_ACCOUNT",
      });
    });

    it("answers NOT_FOUND without a linked account, INVALID_ARGUMENT without a user or provider", async () => {
      const signUp = await api("POST", "/api/auth/signup", {
        body: { name: "Sam", email: `sam-${uniqueSuffix()}@example.com`, password: "correct horse battery" },
      });
      for (const userId of [signUp.body.user.id, "no-such-user"]) {
        await expect(identity.getProviderAccessToken({ userId, provider: "google" })).rejects.toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
      }
      await expect(identity.getProviderAccessToken({ userId: "", provider: "google" })).rejects.toMatchObject({
        kind: "validation",
        details: [{ field: "user_id", message: "is required" }],
      });
    });
  });
});
