import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CHROMIUM, ensureAptPackages, sharedTestStack, WEB_APP_BASE } from "@study/testkit";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

/**
 * What every browser test of the web app shares: Debian's Chromium driving the app the run's shared stack serves
 * at /app/ (one stack for all browser files), a phone-sized window (375 px), and checks on every page a test
 * visits: axe-core finds no serious or critical violation, nothing scrolls sideways, and the page logged no
 * console error, threw nothing and had no request fail.
 */

const inCi = Boolean(process.env.CI) && process.env.CI !== "false";

/** The phone-sized window every test uses (iPhone SE / mini width). */
export const PHONE = { width: 375, height: 740 };

/** `npm run screenshots` sets it: checkPage saves the README's pictures (docs/screenshots/). */
const SCREENSHOT_DIR = process.env.WEB_SCREENSHOTS ? resolve(__dirname, "../../../../docs/screenshots") : undefined;
/** Course emoji in the pictures (Chromium draws none without a colour emoji font). */
const EMOJI_FONT = { package: "fonts-noto-color-emoji", installs: "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf" };
if (SCREENSHOT_DIR) ensureAptPackages([EMOJI_FONT], (line) => process.stderr.write(`[web screenshots] ${line}\n`));
/** The pages the README shows, by their checkPage names. */
const README_PAGES = new Set([
  "sign-in",
  "courses",
  "course",
  "import-transcribing",
  "note",
  "flashcard-set",
  "review",
  "quiz-scored",
  "study-guide",
]);

function chromiumExecutable(): string {
  try {
    ensureAptPackages([CHROMIUM], (line) => process.stderr.write(`[web browser tests] ${line}\n`));
    return CHROMIUM.installs;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `NO BROWSER for the web app's tests: ${reason} (${CHROMIUM.package} at ${CHROMIUM.installs}; ${inCi ? "CI" : "as root, the test kit"} installs it)`,
      { cause: error },
    );
  }
}

const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

export interface AppBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The app's address of an in-app path: `url("/courses")`. */
  url(path?: string): string;
  /** The API's origin (the same as the app's). */
  apiUrl: string;
  /** What went wrong in the page so far (console errors, uncaught exceptions, failed requests). */
  problems: string[];
  /** Problems a test provoked on purpose (e.g. a 401 before sign-in) and checked itself. */
  expectProblem(pattern: RegExp): void;
  close(): Promise<void>;
}

/** Chromium on the shared stack's app, one page in a fresh context (no cookies), 375 px wide. */
export async function openApp(
  options: {
    viewport?: { width: number; height: number };
    /** Another stack's gateway (default: the run's shared stack), serving the app at <gatewayUrl>/app. */
    gatewayUrl?: string;
  } = {},
): Promise<AppBrowser> {
  const gatewayUrl = options.gatewayUrl ?? sharedTestStack().gatewayUrl;
  const browser = await chromium.launch({
    executablePath: chromiumExecutable(),
    // As root (CI, this machine) Chromium refuses to start with its sandbox; it only opens our own app on loopback.
    args: [
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // The audio player plays without a click first (a test presses a transcript segment, not play).
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  const context = await browser.newContext({ viewport: options.viewport ?? PHONE, acceptDownloads: true });
  const page = await context.newPage();
  // A step waits for the app's answer from the stack; two cores shared with the test run's other files.
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  const expected: RegExp[] = [];
  const appUrl = `${gatewayUrl}${WEB_APP_BASE}`;
  const app: AppBrowser = {
    browser,
    context,
    page,
    apiUrl: gatewayUrl,
    url: (path = "/") => `${appUrl}${path}`,
    problems,
    expectProblem: (pattern) => expected.push(pattern),
    close: () => browser.close(),
  };
  const report = (problem: string) => {
    if (!expected.some((pattern) => pattern.test(problem))) problems.push(problem);
  };
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    // Chromium says, as an error, that it ignores helmet's Cross-Origin-Opener-Policy on a plain-HTTP origin.
    if (text.startsWith("The Cross-Origin-Opener-Policy header has been ignored")) return;
    // Chromium logs every 4xx answer as an error too. An API refusal (the 401 of "who is signed in?", a taken
    // e-mail's 409) is the app's to show as a sentence, which the flows check; a missing asset or a 5xx is a fault.
    const refused = /status of (4\d\d)/.exec(text);
    if (refused && new URL(message.location().url, app.apiUrl).pathname.startsWith("/api/")) return;
    report(`console error: ${text} (${message.location().url})`);
  });
  page.on("pageerror", (error) => report(`uncaught in the page: ${error.message}`));
  page.on("requestfailed", (request) => {
    const failure = request.failure()?.errorText ?? "";
    // A request the app cancels on purpose (leaving a page, an upload cancelled, an event stream closed).
    if (failure === "net::ERR_ABORTED") return;
    report(`request failed: ${request.method()} ${request.url()} (${failure})`);
  });
  return app;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The checks every visited page passes: no serious or critical axe-core violation, no sideways scrolling at the
 * window's width, and no problem logged so far. `name` names the page in failures (and its screenshot).
 */
export async function checkPage(app: AppBrowser, name: string): Promise<void> {
  const { page } = app;
  await page.waitForLoadState("load");
  const present = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === "object");
  // Evaluated through the DevTools protocol, which the app's Content-Security-Policy (rightly) does not let a
  // <script> tag do.
  if (!present) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { axe } = window as Window & { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } };
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.slice(0, 3).map((node) => ({ target: node.target })),
    }));
  });
  const serious = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (SCREENSHOT_DIR && README_PAGES.has(name)) {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
  }
  expect({ page: name, accessibility: serious, sidewaysScroll: overflow > 0 ? `${overflow} px` : "none", problems: app.problems }).toEqual({
    page: name,
    accessibility: [],
    sidewaysScroll: "none",
    problems: [],
  });
}

let counter = 0;

/** A new user's e-mail, unique in the run. */
export const uniqueEmail = (label = "student") => `${label}-${Date.now().toString(36)}-${process.pid}-${counter++}@example.com`;

/**
 * A signed-in user in the browser's context without going through the pages (for flows that are not about
 * signing in): signs up through the API with the context's own cookie jar, so the page is signed in too.
 */
export async function signUpThroughApi(app: AppBrowser, name = "Ada Student"): Promise<{ email: string; password: string }> {
  const email = uniqueEmail();
  const password = "correct horse battery staple";
  const response = await app.context.request.post(`${app.apiUrl}/api/auth/signup`, {
    data: { name, email, password },
    headers: { Origin: new URL(app.apiUrl).origin },
  });
  if (!response.ok()) throw new Error(`sign-up answered ${response.status()}: ${await response.text()}`);
  return { email, password };
}
