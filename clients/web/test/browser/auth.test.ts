import { checkPage, openApp, signUpThroughApi, uniqueEmail, type AppBrowser } from "./harness";

/** Signing up, in and out in the browser, and the pages the backend's links and redirects land on. */
describe("web app: accounts", () => {
  let app: AppBrowser;

  beforeAll(async () => {
    app = await openApp();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("signs up, signs out and signs in again, from the keyboard", async () => {
    const { page } = app;
    // The API's root sends browsers to the app (CLIENT_URL), which asks a visitor to sign in.
    await page.goto(app.apiUrl);
    await page.waitForURL((url) => url.pathname === "/app/sign-in");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await checkPage(app, "sign-in");

    await page.getByRole("link", { name: "Create an account" }).click();
    await page.getByRole("heading", { name: "Create your account" }).waitFor();
    const email = uniqueEmail();
    await page.getByLabel("Name").fill("Ada Student");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("correct horse battery staple");
    await checkPage(app, "sign-up");
    await page.getByLabel("Password").press("Enter");
    await page.getByRole("heading", { name: "Your courses" }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("wrong password");
    await page.getByLabel("Password").press("Enter");
    await page
      .getByRole("alert")
      .filter({ hasText: /password/i })
      .waitFor();
    await page.getByLabel("Password").fill("correct horse battery staple");
    // A failed sign-in makes the next one within a second wait (the lockout's delay): the page says for how long
    // and enables the button again when the wait is over.
    const signIn = page.getByRole("button", { name: "Sign in", exact: true });
    const courses = page.getByRole("heading", { name: "Your courses" });
    await signIn.click();
    await courses.or(page.getByText(/You can try again in/)).waitFor();
    if (!(await courses.isVisible())) {
      await page.getByText(/You can try again in/).waitFor({ state: "detached" });
      await signIn.click();
    }
    await courses.waitFor();
  });

  it("refuses a taken e-mail with the API's sentence", async () => {
    const { page } = app;
    await page.context().clearCookies();
    const taken = await signUpThroughApi(app);
    await page.context().clearCookies();
    await page.goto(app.url("/sign-up"));
    await page.getByLabel("Name").fill("Someone Else");
    await page.getByLabel("E-mail").fill(taken.email);
    await page.getByLabel("Password").fill("another good password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /already/i })
      .waitFor();
    await checkPage(app, "sign-up-taken");
  });

  it("shows the pages the backend links to: e-mail confirmed or not, reset password, OAuth error", async () => {
    const { page } = app;
    await page.goto(app.url("/email-verified"));
    await page.getByRole("heading", { name: "E-mail address confirmed" }).waitFor();
    await checkPage(app, "email-verified");
    await page.goto(app.url("/email-verified?error=TOKEN_EXPIRED"));
    await page.getByRole("alert").filter({ hasText: "expired" }).waitFor();

    await page.goto(app.url("/reset-password"));
    await page.getByLabel("E-mail").fill(uniqueEmail());
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("status").filter({ hasText: "on its way" }).waitFor();
    await checkPage(app, "reset-password-request");

    await page.goto(app.url("/reset-password?token=not-a-real-token-at-all"));
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByRole("button", { name: "Set new password" }).click();
    await page.getByRole("alert").waitFor();
    await page.getByRole("link", { name: "Ask for a new link" }).waitFor();
    await checkPage(app, "reset-password-bad-token");

    await page.goto(app.url("/auth/error?code=OAUTH_ERROR&reason=access_denied"));
    await page.getByRole("alert").filter({ hasText: "did not allow" }).waitFor();
    await checkPage(app, "oauth-error");
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });
});
