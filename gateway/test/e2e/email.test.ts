import { eventually, httpClient, startSmtpServer, startTestStack, type LocalSmtpServer, type TestStack } from "@study/testkit";
import { Client } from "pg";

/** E-mail verification and password reset, with mail delivered over real SMTP to a server on loopback. */
describe("e-mail verification and password reset", () => {
  let smtp: LocalSmtpServer;
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // Mail and passwords are the gateway's own: no service is needed.
    stack = await startTestStack({ services: [], gatewayEnv: { SMTP_URL: smtp.url, MAIL_FROM: "Study <no-reply@study.test>" } });
    api = httpClient(stack.gatewayUrl);
  }, 120_000);

  afterAll(async () => {
    await stack?.stopAll();
    await smtp?.close();
  });

  async function signUp(name: string, password = "first password 1") {
    const email = `${name.toLowerCase()}-${Date.now()}@example.com`;
    const response = await api("POST", "/api/auth/signup", { body: { name, email, password } });
    expect(response.status).toBe(200);
    return { email, token: response.body.session.token as string };
  }

  async function sql(query: string, values: unknown[] = []) {
    const db = new Client({ connectionString: stack.databaseUrl("gateway") });
    await db.connect();
    try {
      return (await db.query(query, values)).rows;
    } finally {
      await db.end();
    }
  }

  it("mails a confirmation link on sign-up; following it confirms the address, once", async () => {
    const { email, token } = await signUp("Vera");
    const mail = await smtp.nextMailTo(email);
    expect(mail.subject).toBe("Confirm your e-mail address");
    expect(mail.text).toContain("Hello Vera,");
    const link = mail.links.find((l) => l.includes("/api/auth/verify-email?token="))!;
    expect(link.startsWith(stack.gatewayUrl)).toBe(true);
    expect((await api("GET", "/api/auth/session", { token })).body.user.emailVerified).toBe(false);

    const path = link.slice(stack.gatewayUrl.length);
    const confirmed = await api("GET", path);
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("http://localhost:5173/email-verified");
    expect((await api("GET", "/api/auth/session", { token })).body.user.emailVerified).toBe(true);

    const again = await api("GET", path);
    expect(again.headers.get("location")).toBe("http://localhost:5173/email-verified?error=INVALID_TOKEN");
    const forged = await api("GET", "/api/auth/verify-email?token=not-a-real-token-at-all");
    expect(forged.headers.get("location")).toBe("http://localhost:5173/email-verified?error=INVALID_TOKEN");

    const resend = await api("POST", "/api/auth/verify-email/request", { token });
    expect(resend.status).toBe(409);
    expect(resend.body.code).toBe("EMAIL_ALREADY_VERIFIED");
  });

  it("sends the confirmation again on request", async () => {
    const { email, token } = await signUp("Walt");
    await smtp.nextMailTo(email);
    const before = smtp.mails.filter((m) => m.to.includes(email)).length;
    const resend = await api("POST", "/api/auth/verify-email/request", { token });
    expect(resend.status).toBe(200);
    await eventually(async () => smtp.mails.filter((m) => m.to.includes(email)).length === before + 1);
    expect((await api("POST", "/api/auth/verify-email/request")).status).toBe(401);
  });

  it("resets a password with the mailed single-use token, signs out every session and lifts a lock", async () => {
    const { email, token: oldSession } = await signUp("Xena");
    for (let i = 0; i < 5; i++) {
      // As if the wait after each failure (LOCKOUT_DELAY_SECONDS, doubling) had passed.
      await sql(`UPDATE sign_in_attempt SET last_failure_at = last_failure_at - interval '1 hour' WHERE email = $1`, [email]);
      expect((await api("POST", "/api/auth/signin", { body: { email, password: "wrong guess!" } })).status).toBe(i < 4 ? 401 : 403);
    }
    expect((await api("POST", "/api/auth/signin", { body: { email, password: "first password 1" } })).body.code).toBe("ACCOUNT_LOCKED");

    const request = await api("POST", "/api/auth/password-reset/request", { body: { email } });
    expect(request.status).toBe(200);
    const mail = await eventually(async () => smtp.mails.find((m) => m.to.includes(email) && m.subject === "Reset your password"));
    const link = new URL(mail.links.find((l) => l.includes("/reset-password?token="))!);
    expect(link.origin + link.pathname).toBe("http://localhost:5173/reset-password");
    const resetToken = link.searchParams.get("token")!;

    const weak = await api("POST", "/api/auth/password-reset/confirm", { body: { token: resetToken, newPassword: "short" } });
    expect(weak.status).toBe(400);
    expect(weak.body.details).toEqual([{ field: "newPassword", message: "must be at least 8 characters" }]);

    const reset = await api("POST", "/api/auth/password-reset/confirm", { body: { token: resetToken, newPassword: "second password 2" } });
    expect(reset.status).toBe(200);
    expect((await api("GET", "/api/courses", { token: oldSession })).status).toBe(401);
    // The lock is lifted: the old password is merely wrong now (and makes the next try wait).
    expect((await api("POST", "/api/auth/signin", { body: { email, password: "first password 1" } })).body.code).toBe("INVALID_CREDENTIALS");
    await sql(`UPDATE sign_in_attempt SET last_failure_at = last_failure_at - interval '1 hour' WHERE email = $1`, [email]);
    expect((await api("POST", "/api/auth/signin", { body: { email, password: "second password 2" } })).status).toBe(200);

    const reused = await api("POST", "/api/auth/password-reset/confirm", { body: { token: resetToken, newPassword: "third password 3" } });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "token", message: "is invalid, expired or already used" }] });
  });

  it("refuses an expired reset token", async () => {
    const { email } = await signUp("Yuri");
    await api("POST", "/api/auth/password-reset/request", { body: { email } });
    const mail = await eventually(async () => smtp.mails.find((m) => m.to.includes(email) && m.subject === "Reset your password"));
    const resetToken = new URL(mail.links.find((l) => l.includes("/reset-password?token="))!).searchParams.get("token")!;
    await sql(`UPDATE verification SET "expiresAt" = now() - interval '1 minute' WHERE identifier = $1`, [`reset-password:${resetToken}`]);
    const expired = await api("POST", "/api/auth/password-reset/confirm", { body: { token: resetToken, newPassword: "another password" } });
    expect(expired.status).toBe(400);
  });

  it("answers the same for an unknown address and sends nothing", async () => {
    const unknown = `nobody-${Date.now()}@example.com`;
    const response = await api("POST", "/api/auth/password-reset/request", { body: { email: unknown } });
    expect(response.status).toBe(200);
    expect(response.body.message).toBe("If an account exists for this address, a reset link is on its way");
    // A reset mail asked for afterwards has arrived: one for the unknown address would have been sent first.
    const { email: known } = await signUp("Zeno");
    await api("POST", "/api/auth/password-reset/request", { body: { email: known } });
    await eventually(async () => smtp.mails.some((m) => m.to.includes(known) && m.subject === "Reset your password"));
    expect(smtp.mails.some((m) => m.to.includes(unknown))).toBe(false);
  });
});
