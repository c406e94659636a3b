import { startOidcProvider, startTestStack, uniqueSuffix, type LocalOidcProvider, type TestStack } from "@study/testkit";
import { checkPage, openApp, type AppBrowser } from "./harness";

/**
 * "Sign in with Google" in the browser, against the test kit's OpenID Connect provider (the stand-in `npm start`
 * runs when no Google credentials are set): consent brings the student back into the app signed in; a refused
 * consent lands on the OAuth error page, which leads back to sign-in. Sign-in is the gateway's own, so this file's
 * stack is a gateway alone serving the app.
 */
describe("web app: sign in with Google", () => {
  let provider: LocalOidcProvider;
  let stack: TestStack;
  let app: AppBrowser;

  beforeAll(async () => {
    provider = await startOidcProvider();
    stack = await startTestStack({
      services: [],
      webApp: true,
      gatewayEnv: { GOOGLE_ISSUER_URL: provider.issuer, GOOGLE_CLIENT_ID: provider.clientId, GOOGLE_CLIENT_SECRET: provider.clientSecret },
    });
    app = await openApp({ gatewayUrl: stack.gatewayUrl });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await stack?.stopAll();
    await provider?.close();
  });

  it("signs a student in with Google and back to the page they asked for", async () => {
    const { page } = app;
    const suffix = uniqueSuffix();
    const student = { sub: `google-${suffix}`, email: `grace-${suffix}@gmail.example`, name: "Grace Google" };
    provider.signInAs(student);
    await page.goto(app.url("/account"));
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByRole("button", { name: "Sign in with Google" }).click();
    // The provider consents at once and sends the browser back through the gateway to the app.
    await page.waitForURL((url) => url.pathname === "/app/account");
    await page.getByText(student.email).first().waitFor();
    await checkPage(app, "account-after-google");
  });

  it("shows a refused consent as a sentence, with the way back to sign-in", async () => {
    const { page } = app;
    await app.context.clearCookies();
    provider.denyNextConsent();
    await page.goto(app.url("/sign-in"));
    await page.getByRole("button", { name: "Sign in with Google" }).click();
    await page.waitForURL((url) => url.pathname === "/app/auth/error");
    await page.getByRole("alert").filter({ hasText: "did not allow" }).waitFor();
    await checkPage(app, "google-refused");
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });
});
