import { CATALOGUE } from "@study/platform/catalogue";
import { cookieFrom, eventually, freePort, httpClient, sharedTestStack, startGatewayReplica } from "@study/testkit";
import { Client } from "pg";

/** The whole system through the gateway, as a client would use it. */
describe("end to end through the gateway", () => {
  const stack = sharedTestStack();
  const api = httpClient(stack.gatewayUrl);

  async function signUp(name: string) {
    const email = `${name.toLowerCase()}-${Date.now()}@example.com`;
    const response = await api("POST", "/api/auth/signup", {
      body: { name, email, password: "correct horse battery" },
      headers: { "user-agent": `jest-${name}` },
    });
    expect(response.status).toBe(200);
    return { email, token: response.body.session.token as string, userId: response.body.user.id as string, response };
  }

  it("signs up, and the session works by cookie and by Bearer token", async () => {
    const { response, token, email } = await signUp("Alice");
    expect(response.body.user).toEqual({
      id: expect.any(String),
      name: "Alice",
      email,
      emailVerified: false,
      image: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(response.body.session).toMatchObject({ token, userAgent: "jest-Alice", ipAddress: expect.any(String) });
    const setCookie = response.headers.getSetCookie().join("\n");
    expect(setCookie).toMatch(/better-auth\.session_token=/);
    expect(setCookie).toMatch(/HttpOnly/i);

    const cookie = cookieFrom(response.headers, "better-auth.session_token")!;
    const byCookie = await api("GET", "/api/auth/session", { cookie });
    expect(byCookie.status).toBe(200);
    expect(byCookie.body.user.email).toBe(email);
    const byBearer = await api("GET", "/api/auth/session", { token });
    expect(byBearer.status).toBe(200);
    expect(byBearer.body.session.id).toBe(response.body.session.id);

    const signIn = await api("POST", "/api/auth/signin", { body: { email: email.toUpperCase(), password: "correct horse battery" } });
    expect(signIn.status).toBe(200);
    expect(signIn.body.user.email).toBe(email);
    expect(signIn.body.session.token).not.toBe(token);
    expect(cookieFrom(signIn.headers, "better-auth.session_token")).toBeDefined();
  });

  it("answers 401 UNAUTHORIZED without a session, and for a made-up token", async () => {
    for (const response of [
      await api("GET", "/api/courses"),
      await api("GET", "/api/notifications", { token: "nonsense" }),
      await api("GET", "/api/auth/session"),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, error: expect.any(String), code: "UNAUTHORIZED" });
    }
  });

  it("creates, lists, updates and deletes a course", async () => {
    const { token } = await signUp("Bea");
    const created = await api("POST", "/api/courses", {
      token,
      body: { name: "Organic Chemistry", code: "CHEM220", color: "#f97316", emoji: "🧪", professor: "Dr. Curie", semester: "Fall 2026" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      message: "Course created",
      data: {
        id: expect.any(String),
        name: "Organic Chemistry",
        code: "CHEM220",
        color: "#f97316",
        emoji: "🧪",
        professor: "Dr. Curie",
        semester: "Fall 2026",
        description: null,
        userId: expect.any(String),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const id = created.body.data.id;

    const list = await api("GET", "/api/courses", { token });
    expect(list.status).toBe(200);
    expect(list.body.data.courses.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(list.body.data.pagination).toEqual({ limit: 20, offset: 0, total: 1, hasMore: false });

    const patched = await api("PATCH", `/api/courses/${id}`, { token, body: { name: "Organic Chemistry II", professor: null } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: "Organic Chemistry II", professor: null, code: "CHEM220" });
    expect((await api("GET", `/api/courses/${id}`, { token })).body.data.name).toBe("Organic Chemistry II");

    const deleted = await api("DELETE", `/api/courses/${id}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: "Course deleted" });
    const gone = await api("GET", `/api/courses/${id}`, { token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ success: false, error: "Course not found", code: "NOT_FOUND" });
  });

  it("rejects bad input with 400 VALIDATION_ERROR and field details, big bodies with 413, unknown routes with 404", async () => {
    const { token } = await signUp("Cy");
    const bad = await api("POST", "/api/courses", { token, body: { name: "", color: 42, extra: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect(bad.body.details).toEqual(
      expect.arrayContaining([
        { field: "name", message: "is required" },
        { field: "color", message: expect.any(String) },
        { field: "extra", message: "is not a known field" },
      ]),
    );
    const fromService = await api("POST", "/api/courses", { token, body: { name: "Art", color: "not a color" } });
    expect(fromService.status).toBe(400);
    expect(fromService.body).toEqual({
      success: false,
      error: "Invalid course",
      code: "VALIDATION_ERROR",
      details: [{ field: "color", message: "must be a hex code (#RRGGBB) or a color name" }],
    });
    const malformed = await api("POST", "/api/courses", { token, rawBody: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe("VALIDATION_ERROR");
    const badQuery = await api("GET", "/api/courses?limit=500", { token });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.details).toEqual([{ field: "limit", message: "must be at most 100" }]);
    const huge = await api("POST", "/api/courses", { token, body: { name: "x", description: "y".repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ success: false, code: "PAYLOAD_TOO_LARGE" });
    const unknown = await api("GET", "/api/nothing-here", { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: "NOT_FOUND" });
    const signUpBad = await api("POST", "/api/auth/signup", { body: { name: "X", email: "not-an-email", password: "short" } });
    expect(signUpBad.status).toBe(400);
    expect(signUpBad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(["email", "password"]);
  });

  it("delivers the welcome notification; marking it read drops the unread count", async () => {
    const { token } = await signUp("Dee");
    const welcome = await eventually(async () => {
      const response = await api("GET", "/api/notifications", { token });
      return response.body.data.notifications.length > 0 ? response.body.data : undefined;
    });
    expect(welcome.notifications).toHaveLength(1);
    expect(welcome.notifications[0]).toMatchObject({ type: "SYSTEM", read: false, content: expect.stringContaining("Dee") });
    expect(welcome).toMatchObject({ unreadCount: 1, total: 1 });
    expect((await api("GET", "/api/notifications/unread-count", { token })).body.data).toEqual({ unreadCount: 1 });

    const marked = await api("PATCH", `/api/notifications/${welcome.notifications[0].id}/read`, { token });
    expect(marked.status).toBe(200);
    expect(marked.body.success).toBe(true);
    expect((await api("GET", "/api/notifications/unread-count", { token })).body.data).toEqual({ unreadCount: 0 });
    const unreadOnly = await api("GET", "/api/notifications?includeRead=false", { token });
    expect(unreadOnly.body.data).toMatchObject({ notifications: [], unreadCount: 0 });
    expect((await api("PATCH", "/api/notifications/read-all", { token })).body.data).toEqual({ markedCount: 0 });
    expect((await api("GET", "/api/notifications?includeRead=maybe", { token })).status).toBe(400);
  });

  it("scopes every resource to its owner: another user's ids answer 404", async () => {
    const owner = await signUp("Eve");
    const intruder = await signUp("Mallory");
    const course = (await api("POST", "/api/courses", { token: owner.token, body: { name: "Secret Seminar" } })).body.data;
    const notification = await eventually(async () => (await api("GET", "/api/notifications", { token: owner.token })).body.data.notifications[0]);

    for (const [method, path, body] of [
      ["GET", `/api/courses/${course.id}`],
      ["PATCH", `/api/courses/${course.id}`, { name: "Mine now" }],
      ["DELETE", `/api/courses/${course.id}`],
      ["PATCH", `/api/notifications/${notification.id}/read`],
    ] as const) {
      const response = await api(method, path, { token: intruder.token, body });
      expect({ method, path, status: response.status, code: response.body.code }).toEqual({ method, path, status: 404, code: "NOT_FOUND" });
    }
    expect((await api("GET", "/api/courses", { token: intruder.token })).body.data.courses).toEqual([]);
    expect((await api("GET", `/api/courses/${course.id}`, { token: owner.token })).body.data.name).toBe("Secret Seminar");
  });

  it("answers INVALID_CREDENTIALS, then ACCOUNT_LOCKED after repeated failures (even with the right password)", async () => {
    const { email } = await signUp("Fay");
    const db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
    // As if the wait after the last failure (LOCKOUT_DELAY_SECONDS, doubling; account.test.ts checks it) had passed.
    const waitOut = () => db.query(`UPDATE sign_in_attempt SET last_failure_at = last_failure_at - interval '1 hour' WHERE email = $1`, [email]);
    try {
      for (let attempt = 1; attempt <= 4; attempt++) {
        const wrong = await api("POST", "/api/auth/signin", { body: { email, password: "wrong password!" } });
        expect(wrong.status).toBe(401);
        expect(wrong.body).toEqual({ success: false, error: "Invalid e-mail or password", code: "INVALID_CREDENTIALS" });
        await waitOut();
      }
    } finally {
      await db.end();
    }
    const locking = await api("POST", "/api/auth/signin", { body: { email, password: "wrong password!" } });
    expect(locking.status).toBe(403);
    expect(locking.body).toMatchObject({ success: false, code: "ACCOUNT_LOCKED", action: "RETRY_LATER" });
    const locked = await api("POST", "/api/auth/signin", { body: { email, password: "correct horse battery" } });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe("ACCOUNT_LOCKED");
    const unknown = await api("POST", "/api/auth/signin", { body: { email: "nobody@example.com", password: "whatever1" } });
    expect(unknown.body.code).toBe("INVALID_CREDENTIALS");
  });

  it("signs out (the token stops working) and answers SESSION_EXPIRED for an expired session", async () => {
    const first = await signUp("Gus");
    const out = await api("POST", "/api/auth/signout", { token: first.token });
    expect(out.status).toBe(200);
    expect((await api("GET", "/api/courses", { token: first.token })).body.code).toBe("UNAUTHORIZED");

    const second = await signUp("Hal");
    const db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
    try {
      await db.query(`UPDATE "session" SET "expiresAt" = now() - interval '1 minute' WHERE token = $1`, [second.token]);
    } finally {
      await db.end();
    }
    for (let i = 0; i < 2; i++) {
      const expired = await api("GET", "/api/courses", { token: second.token });
      expect(expired.status).toBe(401);
      expect(expired.body.code).toBe("SESSION_EXPIRED");
    }
  });

  it("checks the signature of a cookie or signed Bearer token, and renews a session only when it is due", async () => {
    const { response, token } = await signUp("Ivy");
    const cookie = cookieFrom(response.headers, "better-auth.session_token")!;
    // The cookie holds the signed token (token.signature, URL-encoded); clients may send it as a Bearer token.
    const signedToken = decodeURIComponent(cookie.split(/=(.*)/s)[1]);
    expect(signedToken.startsWith(`${token}.`)).toBe(true);
    expect((await api("GET", "/api/courses", { cookie })).status).toBe(200);
    expect((await api("GET", "/api/courses", { token: signedToken })).status).toBe(200);
    // Changes one character of the signature: the first one (other bytes), or the lowest bit of the last one
    // before the padding, which base64 leaves unused (same bytes, different text: refused all the same).
    const swap = (char: string) => (char === "A" ? "B" : "A");
    const tamperFirst = (value: string) => {
      const at = value.lastIndexOf(".") + 1;
      return value.slice(0, at) + swap(value[at]) + value.slice(at + 1);
    };
    const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const flipLowBit = (char: string) => BASE64[BASE64.indexOf(char) ^ 1];
    const tamperUnusedBits = (value: string) => value.replace(/.(%3D|=)$/, (last) => flipLowBit(last[0]) + last.slice(1));
    const [cookieName, cookieValue] = cookie.split(/=(.*)/s);
    for (const tamper of [tamperFirst, tamperUnusedBits]) {
      expect(tamper(cookieValue)).not.toBe(cookieValue);
      expect((await api("GET", "/api/courses", { cookie: `${cookieName}=${tamper(cookieValue)}` })).body.code).toBe("UNAUTHORIZED");
      expect((await api("GET", "/api/courses", { token: tamper(signedToken) })).body.code).toBe("UNAUTHORIZED");
    }

    const db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
    try {
      const expiry = async () =>
        ((await db.query(`SELECT "expiresAt" FROM "session" WHERE token = $1`, [token])).rows[0].expiresAt as Date).getTime();
      // Fresh (renewed less than SESSION_RENEW_AFTER_HOURS = 24 h ago): used without a write.
      const fresh = await expiry();
      expect((await api("GET", "/api/courses", { token })).status).toBe(200);
      expect(await expiry()).toBe(fresh);
      // Last renewed 25 h ago (the default lifetime is 30 days): the use renews it to 30 days from now.
      await db.query(`UPDATE "session" SET "expiresAt" = now() + interval '30 days' - interval '25 hours' WHERE token = $1`, [token]);
      const before = await expiry();
      expect((await api("GET", "/api/courses", { token })).status).toBe(200);
      const renewed = await expiry();
      expect(renewed - before).toBeGreaterThan(24 * 3600 * 1000);
      expect(Math.abs(renewed - (Date.now() + 30 * 24 * 3600 * 1000))).toBeLessThan(60_000);
    } finally {
      await db.end();
    }
  });

  it("accepts the spec's session cookie names: session_token and a dotted name ending in .session-token", async () => {
    const { response, token } = await signUp("Jo");
    const signedValue = cookieFrom(response.headers, "better-auth.session_token")!.split(/=(.*)/s)[1];
    // The value is better-auth's signed value (URL-encoded or not); a __Host- name (which no sibling subdomain can set)
    // may carry the raw token, as the Bearer header does.
    for (const cookie of [
      `session_token=${signedValue}`,
      `__Host-study.session-token=${token}`,
      `study.session-token=${signedValue}`,
      `theme=dark; session_token=${decodeURIComponent(signedValue)}`,
    ]) {
      const session = await api("GET", "/api/auth/session", { cookie });
      expect(session.status).toBe(200);
      expect(session.body.session.token).toBe(token);
      expect((await api("GET", "/api/courses", { cookie })).status).toBe(200);
    }
    // A value with a dot must carry a valid signature, a raw token needs a __Host- name; names that merely look alike
    // are not session cookies.
    const forged = `${token}.${"A".repeat(43)}=`;
    for (const cookie of [
      `session_token=${forged}`,
      `study.session-token=${forged}`,
      `session_token=${token}`,
      `__Secure-study.session-token=${token}`,
      `session-token=${signedValue}`,
      `study.session_token=${signedValue}`,
    ]) {
      const refused = await api("GET", "/api/courses", { cookie });
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe("UNAUTHORIZED");
    }

    // The auth library sees the same session: renewal when due, sign-out.
    const db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
    try {
      const expiry = async () =>
        ((await db.query(`SELECT "expiresAt" FROM "session" WHERE token = $1`, [token])).rows[0].expiresAt as Date).getTime();
      await db.query(`UPDATE "session" SET "expiresAt" = now() + interval '30 days' - interval '25 hours' WHERE token = $1`, [token]);
      const before = await expiry();
      expect((await api("GET", "/api/courses", { cookie: `session_token=${signedValue}` })).status).toBe(200);
      expect((await expiry()) - before).toBeGreaterThan(24 * 3600 * 1000);
    } finally {
      await db.end();
    }
    const signOut = await api("POST", "/api/auth/signout", { cookie: `__Host-study.session-token=${token}` });
    expect(signOut.status).toBe(200);
    expect((await api("GET", "/api/auth/session", { cookie: `session_token=${signedValue}` })).status).toBe(401);
    expect((await api("GET", "/api/auth/session", { token })).status).toBe(401);

    const expiring = await signUp("Kim");
    const expiredDb = new Client({ connectionString: stack.databaseUrl("gateway") });
    await expiredDb.connect();
    try {
      await expiredDb.query(`UPDATE "session" SET "expiresAt" = now() - interval '1 minute' WHERE token = $1`, [expiring.token]);
    } finally {
      await expiredDb.end();
    }
    for (let i = 0; i < 2; i++) {
      const expired = await api("GET", "/api/courses", { cookie: `__Host-study.session-token=${expiring.token}` });
      expect(expired.status).toBe(401);
      expect(expired.body.code).toBe("SESSION_EXPIRED");
    }
  });

  it("reports health of the gateway and every service, and redirects / to the client", async () => {
    const health = await api("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: "ok",
      gateway: { status: "SERVING", database: "SERVING" },
      services: Object.fromEntries(CATALOGUE.map((entry) => [entry.name, "SERVING"])),
    });
    const root = await api("GET", "/");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe(stack.webAppUrl);
    expect(root.headers.get("x-request-id")).toBeTruthy();

    // A gateway replica whose courses address answers nothing sees courses down, as the shared stack's gateway
    // would with courses stopped, while every other file keeps the shared courses (the recovery after a restart:
    // reliability.test.ts).
    const replica = await startGatewayReplica({ COURSES_GRPC_ADDRESS: `127.0.0.1:${await freePort()}` });
    try {
      const viaReplica = httpClient(replica.url);
      const degraded = await viaReplica("GET", "/health");
      expect(degraded.status).toBe(503);
      expect(degraded.body.services).toEqual(
        Object.fromEntries(CATALOGUE.map((entry) => [entry.name, entry.name === "courses" ? "UNREACHABLE" : "SERVING"])),
      );
      const { token } = await signUp("Ivy");
      const unavailable = await viaReplica("GET", "/api/courses", { token });
      expect(unavailable.status).toBe(503);
      expect(unavailable.body).toEqual({ success: false, error: expect.any(String), code: "SERVICE_UNAVAILABLE" });
    } finally {
      await replica.stop();
    }
  });
});
