import { checkPage, openApp, signUpThroughApi, type AppBrowser } from "./harness";
import { confirmEmailInDatabase } from "./jobs-helpers";

/** The account page: who is signed in, the e-mail confirmation link, and how and where the user signs in. */
describe("web app: account", () => {
  let app: AppBrowser;

  beforeAll(async () => {
    app = await openApp();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("shows the user's details and sends the e-mail confirmation link", async () => {
    const { page } = app;
    const { email } = await signUpThroughApi(app, "Ada Student");
    await page.goto(app.url("/courses"));
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await page.getByText(email, { exact: true }).waitFor();
    await page.getByText("Ada Student", { exact: true }).waitFor();
    await page.getByText(/^Not confirmed yet/).waitFor();
    await page.getByRole("region", { name: "Ways to sign in" }).getByText("E-mail and password").waitFor();
    await page.getByRole("region", { name: "Where you are signed in" }).getByRole("listitem").first().waitFor();
    await checkPage(app, "account");

    await page.getByRole("button", { name: "Send confirmation link" }).press("Enter");
    await page
      .getByRole("status")
      .filter({ hasText: `We sent a confirmation link to ${email}.` })
      .waitFor();
    await checkPage(app, "account-link-sent");
  });

  it("says so when the address was confirmed meanwhile (the API's 409)", async () => {
    const { page } = app;
    await app.context.clearCookies();
    const { email } = await signUpThroughApi(app, "Grace Student");
    await page.goto(app.url("/account"));
    await page.getByText(/^Not confirmed yet/).waitFor();
    // Confirmed from another device while this page was open.
    await confirmEmailInDatabase(email);
    await page.getByRole("button", { name: "Send confirmation link" }).click();
    await page.getByRole("status").filter({ hasText: "This e-mail address is already confirmed." }).waitFor();
    await page.getByText("Confirmed", { exact: true }).waitFor();
    expect(await page.getByRole("button", { name: "Send confirmation link" }).count()).toBe(0);
    await checkPage(app, "account-confirmed");
  });
});
