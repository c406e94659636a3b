/**
 * `npm run bench:web`: the web app's two budgets (issue #30), in Debian's Chromium against a stack started for the
 * run (NODE_ENV=production, the gateway serving clients/web/dist at /app/ as deployed):
 *
 *   1. first page — the JavaScript a new visitor's first page (/app/ → sign-in) loads: every script response,
 *      its bytes as sent (gzip, the gateway compresses /app) and uncompressed; target ≤ 200 KB gzip;
 *   2. note page  — a note with a one-hour transcript (--segments segments over 3600 s, ~12 words each): the time
 *      from navigation to a usable page (its title and the transcript's first segment shown), cold (a browser with
 *      an empty cache, after one visit that warms the servers) and warm (--visits more), in a 375 px window; target
 *      ≤ 1 s.
 *
 * Figures go to stdout and bench/results/web-app-<time>.json; docs/web-app.md keeps the measured ones.
 * Options: --segments=720 --visits=7
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Client } from "pg";
import { chromium, type Page } from "playwright-core";
import { media } from "@study/contracts";
import { createClient } from "@study/grpc";
import { CHROMIUM, completeImportInDatabase, ensureAptPackages, WEB_APP_BASE, WEB_APP_DIST } from "@study/testkit";
import { cleanupOnExit } from "./cleanup";
import { RESULTS_DIR, option, percentile, startBenchStack } from "./common";

const SEGMENTS = option("segments", 720, 1);
const VISITS = option("visits", 7, 1);
const say = (line: string) => process.stdout.write(`[bench:web] ${line}\n`);
const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

const WORDS = "cell membrane protein energy mitochondria enzyme gradient transport signal receptor nucleus gene".split(" ");

/** A lecture's transcript: `count` segments evenly over an hour, deterministic text. */
function oneHourTranscript(count: number) {
  const length = 3600 / count;
  const segments = Array.from({ length: count }, (_, index) => ({
    start: index * length,
    end: (index + 1) * length,
    text: `Segment ${index + 1}: ${Array.from({ length: 12 }, (_, word) => WORDS[(index * 7 + word * 3) % WORDS.length]).join(" ")}.`,
  }));
  return { content: segments.map((segment) => segment.text).join(" "), summary: "A one-hour lecture.", segments, duration: 3600 };
}

async function main() {
  const logs: string[] = [];
  const baseDir = mkdtempSync(join(tmpdir(), "bench-web-"));
  const { steps: cleanups, cleanup } = cleanupOnExit(say, () => rmSync(baseDir, { recursive: true, force: true, maxRetries: 3 }));
  try {
    await measure(baseDir, logs, cleanups);
  } finally {
    await cleanup();
  }
}

async function measure(baseDir: string, logs: string[], cleanups: (() => unknown)[]) {
  say(`starting the stack (web app from ${WEB_APP_DIST})`);
  // The media worker would try to fetch the seeded import's video: without it the import waits to be seeded.
  const started = await startBenchStack(baseDir, logs, cleanups, {
    without: ["media-worker"],
    gatewayEnv: { WEB_APP_DIR: WEB_APP_DIST },
  });
  const { stack } = started;
  const origin = stack.gatewayUrl;
  ensureAptPackages([CHROMIUM], say);
  const browser = await chromium.launch({
    executablePath: CHROMIUM.installs,
    args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  cleanups.push(() => browser.close());

  // 1. The first page's JavaScript.
  const firstContext = await browser.newContext({ viewport: { width: 375, height: 740 } });
  const firstPage = await firstContext.newPage();
  const scripts: { url: string; sent: number; raw: number; gzip: number }[] = [];
  firstPage.on("response", (response) => {
    if (response.request().resourceType() !== "script") return;
    scripts.push({ url: new URL(response.url()).pathname, sent: 0, raw: 0, gzip: 0 });
    const entry = scripts[scripts.length - 1];
    void (async () => {
      const body = await response.body();
      const sizes = await response.request().sizes();
      entry.raw = body.length;
      entry.gzip = gzipSync(body).length;
      entry.sent = sizes.responseBodySize;
    })();
  });
  await firstPage.goto(`${origin}${WEB_APP_BASE}/`, { waitUntil: "networkidle" });
  await firstPage.getByRole("heading", { name: "Sign in" }).waitFor();
  const firstPageJs = { sent: 0, raw: 0, gzip: 0 };
  for (const script of scripts) {
    firstPageJs.sent += script.sent;
    firstPageJs.raw += script.raw;
    firstPageJs.gzip += script.gzip;
  }
  say(
    `first page (${firstPage.url()}): ${scripts.length} scripts, ${kb(firstPageJs.sent)} KB sent, ${kb(firstPageJs.gzip)} KB gzip, ${kb(firstPageJs.raw)} KB uncompressed`,
  );
  for (const script of scripts) say(`  ${script.url}: ${kb(script.sent)} KB sent, ${kb(script.raw)} KB`);

  // 2. The note page of a one-hour lecture.
  const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
  const request = context.request;
  const headers = { Origin: origin };
  const signUp = await request.post(`${origin}/api/auth/signup`, {
    headers,
    data: { name: "Bench Student", email: `bench-${Date.now()}@example.com`, password: "correct horse battery staple" },
  });
  if (!signUp.ok()) throw new Error(`sign-up: ${signUp.status()} ${await signUp.text()}`);
  const course = (await (await request.post(`${origin}/api/courses`, { headers, data: { name: "Cell Biology" } })).json()) as {
    data: { id: string };
  };
  // The import as the gateway would create it (media's CreateImport), then finished as its worker would: a public
  // media host cannot be reached from here, and transcribing an hour of audio is not what is measured.
  const session = (await (await request.get(`${origin}/api/auth/session`)).json()) as { user: { id: string } };
  const mediaClient = createClient(media.MediaServiceClient, media.MediaServiceService, stack.serviceAddresses.media);
  const { note, job } = await mediaClient.createImport({
    userId: session.user.id,
    type: media.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
    title: "Lecture 1: the cell",
    courseId: course.data.id,
    sourceUrl: "https://video.example.com/watch?v=lecture-1",
    speedMultiplier: 2,
  });
  mediaClient.close();
  if (!note?.id || !job?.id) throw new Error("CreateImport answered without a note or job");
  const importData = { note: { id: note.id }, importJob: { id: job.id } };
  const mediaDb = new Client({ connectionString: started.databaseUrl("media") });
  await mediaDb.connect();
  const transcript = oneHourTranscript(SEGMENTS);
  await completeImportInDatabase(mediaDb, { noteId: importData.note.id, jobId: importData.importJob.id }, transcript);
  await mediaDb.end();

  const noteUrl = `${origin}${WEB_APP_BASE}/notes/${importData.note.id}`;
  const firstSegment = transcript.segments[0].text;
  const visit = async (page: Page) => {
    const start = performance.now();
    await page.goto(noteUrl, { waitUntil: "commit" });
    await page.getByRole("heading", { name: "Lecture 1: the cell" }).waitFor();
    await page.getByText(firstSegment).first().waitFor();
    return performance.now() - start;
  };
  // The servers' first answers (a gRPC connection opened, code paths compiled) are not the browser's: one visit in
  // a context of its own first. Then cold: a browser with an empty cache; warm: the same browser again.
  const warmUp = await browser.newContext({ storageState: await context.storageState() });
  await visit(await warmUp.newPage());
  await warmUp.close();
  const page = await context.newPage();
  const cold = await visit(page);
  const warm: number[] = [];
  for (let index = 0; index < VISITS; index++) {
    await page.goto("about:blank");
    warm.push(await visit(page));
  }
  // Virtualised: only the segments near the view are in the page.
  const rendered = await page.getByText(/^Segment \d+:/).count();
  warm.sort((a, b) => a - b);
  const notePage = {
    segments: SEGMENTS,
    coldMs: Math.round(cold),
    warmP50Ms: Math.round(percentile(warm, 50)),
    warmMaxMs: Math.round(warm[warm.length - 1]),
    segmentsInPage: rendered,
  };
  say(
    `note page, ${SEGMENTS} segments over an hour: cold ${notePage.coldMs} ms, warm p50 ${notePage.warmP50Ms} ms, max ${notePage.warmMaxMs} ms (${rendered} of them in the page)`,
  );

  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `web-app-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify({ firstPage: { scripts, total: firstPageJs }, notePage }, null, 2)}\n`);
  say(`results: ${file}`);
  const verdicts = [
    `first page ${kb(firstPageJs.gzip)} KB gzip ${firstPageJs.gzip <= 200 * 1024 ? "≤" : ">"} 200 KB`,
    `note page ${notePage.warmP50Ms} ms (cold ${notePage.coldMs} ms) ${Math.max(notePage.warmP50Ms, notePage.coldMs) <= 1000 ? "≤" : ">"} 1 s`,
  ];
  say(`budgets: ${verdicts.join("; ")}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
