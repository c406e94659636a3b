import { CATALOGUE } from "@study/platform/catalogue";
import { CHROMIUM, ensureAptPackages, httpClient, sharedTestStack, startTestStack, type TestStack } from "@study/testkit";
import { chromium, type Browser, type Page } from "playwright-core";

/**
 * Debian's Chromium, installed by the test kit when it is absent and we are root (CI's .ci/run installs it before
 * the tests); otherwise why there is none.
 */
function findChromium(): { executable: string; missing?: undefined } | { executable?: undefined; missing: string } {
  try {
    ensureAptPackages([CHROMIUM], (line) => process.stderr.write(`[swagger-browser] ${line}\n`));
    return { executable: CHROMIUM.installs };
  } catch (error) {
    return { missing: error instanceof Error ? error.message : String(error) };
  }
}

const browserFound = findChromium();
// Without a browser: CI fails (a green run must have looked at the page), a developer's run skips loudly.
const inCi = Boolean(process.env.CI) && process.env.CI !== "false";
const noBrowser = browserFound.missing && `NO BROWSER for the Swagger UI test: ${browserFound.missing} (${CHROMIUM.package} at ${CHROMIUM.installs})`;
if (noBrowser && !inCi) console.warn(`${noBrowser}\nSKIPPING gateway/test/e2e/swagger-browser.test.ts; in CI (CI=true) this fails.`);

/**
 * The name the browser opens the gateway at (mapped to 127.0.0.1 inside Chromium). Not loopback: browsers treat
 * http://127.0.0.1 like HTTPS, and a page that works only there would hide what a deployment reached over plain
 * HTTP by its name sees (helmet's upgrade-insecure-requests once blanked the page there).
 */
const DOCS_HOST = "gateway.test";

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** Every operation of an OpenAPI document as "METHOD /path", the way Swagger UI labels them. */
function operationsOf(openapi: { paths: Record<string, Record<string, unknown>> }): string[] {
  return Object.entries(openapi.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => HTTP_METHODS.has(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/**
 * Swagger UI (ENABLE_SWAGGER=true) in a real headless Chromium: it renders, lists exactly the operations of the
 * live /openapi.json, and "Try it out" on GET /health reaches the running system — with nothing refused on the
 * way (a Content-Security-Policy blocking the page's scripts, styles or requests shows up as a console error).
 */
(noBrowser && !inCi ? describe.skip : describe)("Swagger UI in a real browser", () => {
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  /** The gateway as a deployment is reached: by a name over plain HTTP (see DOCS_HOST). */
  let origin: string;
  /** What went wrong in the page: console errors, uncaught exceptions, failed requests, 4xx/5xx answers. */
  const problems: string[] = [];

  beforeAll(async () => {
    if (noBrowser) throw new Error(`${noBrowser}. CI must provide it: .ci/run installs ${CHROMIUM.package} as root.`);
    // A gateway of its own (the shared stack's keeps Swagger off, the default), in front of the shared stack's
    // services, as a second gateway replica would be: GET /health then answers 200 with every service SERVING,
    // without starting a dozen processes again.
    const shared = sharedTestStack();
    const addresses = Object.fromEntries(CATALOGUE.map((entry) => [entry.grpcAddressVariable, shared.serviceAddresses[entry.name]]));
    [stack, browser] = await Promise.all([
      startTestStack({ catalogue: [], internalAuth: shared.internalAuth, gatewayEnv: { ENABLE_SWAGGER: "true", ...addresses } }),
      chromium.launch({
        executablePath: browserFound.executable,
        // As root (CI, this machine), Chromium refuses to start with its sandbox: it exits with "Running as root
        // without --no-sandbox is not supported". The only page it opens is our own gateway's, on loopback.
        args: [`--host-resolver-rules=MAP ${DOCS_HOST} 127.0.0.1`, ...(process.getuid?.() === 0 ? ["--no-sandbox"] : [])],
      }),
    ]);
    const url = new URL(stack.gatewayUrl);
    url.hostname = DOCS_HOST;
    origin = url.origin;
    page = await browser.newPage();
    // A step took up to ≈ 5 s on this 2-core machine under a load of 14 (Swagger UI renders every operation again on
    // each click): room above that, while a step that never happens still fails within the test's 60 s.
    page.setDefaultTimeout(30_000);
    page.on("console", (message) => {
      // Chromium reports, as an error, that it ignores helmet's Cross-Origin-Opener-Policy on a plain-HTTP origin:
      // the header is for HTTPS deployments, and ignoring it changes nothing on this page.
      if (message.type() === "error" && !message.text().startsWith("The Cross-Origin-Opener-Policy header has been ignored")) {
        problems.push(`console error: ${message.text()}`);
      }
    });
    page.on("pageerror", (error) => problems.push(`uncaught in the page: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText})`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.request().method()} ${response.url()}`);
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stopAll();
  });

  it("loads at /docs and lists every operation of /openapi.json, under every tag", async () => {
    const { status, body: openapi } = await httpClient(stack.gatewayUrl)("GET", "/openapi.json");
    expect(status).toBe(200);
    const expected = operationsOf(openapi).sort();
    expect(expected).toEqual(expect.arrayContaining(["GET /health", "GET /docs", "GET /openapi.json", "POST /api/courses"]));
    const tags = new Set(
      Object.values(openapi.paths as Record<string, Record<string, { tags?: string[] }>>).flatMap((item) =>
        Object.values(item).flatMap((operation) => operation.tags ?? []),
      ),
    );

    // /docs redirects to /docs/, where the page's assets are relative to.
    const loaded = await page.goto(`${origin}/docs`);
    expect({ status: loaded?.status(), url: page.url() }).toEqual({ status: 200, url: `${origin}/docs/` });
    // goto waited for the load event: every script and stylesheet of the page has loaded, or failed, by now.
    expect(problems).toEqual([]);
    await page.locator(".swagger-ui .info .title", { hasText: openapi.info.title }).waitFor();
    // The spec renders as a whole: one section per tag once it has.
    await page.waitForFunction((count) => document.querySelectorAll(".opblock-tag-section").length === count, tags.size);

    // Open any tag Swagger UI shows collapsed (docExpansion "none" would collapse them all).
    const collapsed = page.locator(".opblock-tag-section:not(.is-open) > .opblock-tag");
    for (let left = await collapsed.count(); left > 0; left--) await collapsed.first().click();
    expect(await collapsed.count()).toBe(0);

    // data-path: the path as documented (a deprecated operation's span has another class, the same attribute).
    const shown = await page.$$eval(".opblock", (blocks) =>
      blocks.map(
        (block) =>
          `${block.querySelector(".opblock-summary-method")?.textContent ?? "?"} ${block.querySelector("[data-path]")?.getAttribute("data-path") ?? "?"}`,
      ),
    );
    expect(shown.sort()).toEqual(expected);
    expect(problems).toEqual([]);

    // The page's policy is the API's but for upgrade-insecure-requests (see gateway/src/app.ts).
    const pagePolicy = (await loaded?.allHeaders())?.["content-security-policy"];
    const apiPolicy = (await fetch(`${stack.gatewayUrl}/health/live`)).headers.get("content-security-policy");
    expect(apiPolicy).toContain("upgrade-insecure-requests");
    expect(pagePolicy).toBe(apiPolicy?.replace(/;?upgrade-insecure-requests/, ""));
  });

  // On the page the test above loaded (tests of a file run in order).
  it('runs GET /health through "Try it out" and shows the live server\'s 200 answer', async () => {
    const asked = new Date();
    const health = page.locator(".opblock.opblock-get", { has: page.locator('.opblock-summary-path[data-path="/health"]') });
    await health.locator(".opblock-summary").click();
    await health.locator("button.try-out__btn", { hasText: "Try it out" }).click();
    const [answer] = await Promise.all([
      page.waitForResponse((response) => new URL(response.url()).pathname === "/health"),
      health.locator("button.execute", { hasText: "Execute" }).click(),
    ]);
    expect({ url: answer.url(), status: answer.status() }).toEqual({ url: `${origin}/health`, status: 200 });

    // What the page shows: the live answer's status and body (not the documented examples beside them).
    const live = health.locator(".live-responses-table .response");
    await live.locator(".response-col_status").waitFor();
    expect((await live.locator(".response-col_status").textContent())?.trim()).toBe("200");
    const shownBody = JSON.parse((await live.locator(".response-col_description pre").first().textContent()) ?? "") as {
      status: string;
      gateway: { status: string; database: string };
      services: Record<string, string>;
      timestamp: string;
    };
    expect(shownBody).toEqual({
      status: "ok",
      gateway: { status: "SERVING", database: "SERVING" },
      services: Object.fromEntries(CATALOGUE.map((entry) => [entry.name, "SERVING"])),
      timestamp: expect.any(String),
    });
    // Made by the server for this click, not a cached or example answer.
    expect(new Date(shownBody.timestamp).getTime()).toBeGreaterThanOrEqual(asked.getTime() - 1_000);
    expect(problems).toEqual([]);
  });
});
