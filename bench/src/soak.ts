/**
 * `npm run soak`: many users through the gateway for minutes at a steady rate (issue #17), with faults: every
 * service, each worker, RabbitMQ, PostgreSQL and the gateway SIGKILLed and restarted in turn, one at a time.
 *
 *   1. the stack as the benchmarks start it (bench/src/common.ts), PostgreSQL writing each commit before it is
 *      acknowledged (a killed server must lose nothing it confirmed);
 *   2. traffic: --users users sign up, then each does what a student's app does (courses, notes with audio
 *      uploads transcribed by the real media worker, generation, documents, search, calendar, referral,
 *      notifications, dashboard), requests started on a Poisson schedule of --rate per second (open loop), each
 *      with a client timeout of the route's gateway deadline plus --slack;
 *   3. after --warmup seconds, the faults: SIGKILL, --down seconds down, restart (until ready), --quiet seconds
 *      before the next; traffic runs --minutes in all, longer when the faults need it (then --tail more);
 *   4. every process's memory every --sample seconds;
 *   5. traffic stops; the system drains (outboxes empty, queues empty, jobs finished; at most --drain seconds);
 *      then the consistency checks (soak-checks.ts) and the report: stdout, bench/results/soak-<date>.json and
 *      soak-<date>.md.
 *
 * Options: --minutes=4 --users=50 --rate=15 --seed=1 --faults (default) / --no-faults --warmup=45 --down=5
 *          --quiet=10 --settle=10 --tail=30 --sample=10 --drain=240 --slack=1000 --upload-every=15
 *          --targets=postgres,gateway (only these faults, in the usual order)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { CATALOGUE, type Catalogue } from "@study/platform/catalogue";
import { librivoxClip } from "@study/testkit";
import { cleanupOnExit } from "./cleanup";
import {
  RESULTS_DIR,
  cpuSeconds,
  descendants,
  machineBusySeconds,
  option,
  percentile,
  processes,
  rssMiB,
  sleep,
  startBenchStack,
  type BenchStack,
} from "./common";
import { consistencyChecks, consumerBindings, databases, pendingOutbox, queueDepths, unfinishedJobs, type Check } from "./soak-checks";
import { SoakClient, Traffic, seededRandom, type Deadlines, type Outcome } from "./soak-traffic";

const MINUTES = option("minutes", 4);
const USERS = option("users", 50);
const RATE = option("rate", 15);
const SEED = option("seed", 1, 0);
const FAULTS = !process.argv.includes("--no-faults");
const WARMUP_S = option("warmup", 45);
const DOWN_S = option("down", 5, 0);
const QUIET_S = option("quiet", 10, 0);
const SETTLE_S = option("settle", 10, 0);
const TAIL_S = option("tail", 30, 0);
const SAMPLE_S = option("sample", 10);
const DRAIN_S = option("drain", 240);
const SLACK_MS = option("slack", 1000, 0);
const UPLOAD_EVERY_S = option("upload-every", 15);
/** `--targets=postgres,gateway`: only these faults (default: all of them, in order). */
const TARGETS = process.argv
  .find((arg) => arg.startsWith("--targets="))
  ?.slice("--targets=".length)
  .split(",");

/** The gateway's deadlines in this run (set below; the defaults of the generation and upload ones are minutes). */
const DEADLINES: Deadlines = { grpc: 5_000, generation: 15_000, upload: 20_000, slack: SLACK_MS };

const say = (line: string) => process.stdout.write(`[soak] ${line}\n`);
const round = (value: number, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

// ------------------------------------------------------------------------------------------------------ faults

interface Fault {
  target: string;
  /** Milliseconds since the start: SIGKILL sent, process(es) gone, restarted and ready, end of the settle period. */
  killAt: number;
  goneAt: number;
  restartAt: number;
  readyAt: number;
  windowEnd: number;
  error?: string;
}

/** Every process the faults take down, in order: the services, their workers, the broker, the database, the gateway. */
function faultTargets(): string[] {
  return [
    ...CATALOGUE.map((entry) => entry.name),
    ...(CATALOGUE as Catalogue).flatMap((entry) => (entry.extraProcesses ?? []).map((extra) => extra.name)),
    "rabbitmq",
    "postgres",
    "gateway",
  ];
}

async function injectFault(bench: BenchStack, target: string, now: () => number): Promise<Fault> {
  const fault: Fault = { target, killAt: now(), goneAt: NaN, restartAt: NaN, readyAt: NaN, windowEnd: NaN };
  try {
    if (target === "rabbitmq") await bench.infrastructure.rabbitmq.kill();
    else if (target === "postgres") await bench.infrastructure.postgres.kill();
    else await bench.stack.stop(target, "SIGKILL");
    fault.goneAt = now();
    await sleep(DOWN_S * 1000);
    fault.restartAt = now();
    if (target === "rabbitmq") await bench.infrastructure.rabbitmq.restart();
    else if (target === "postgres") await bench.infrastructure.postgres.restart();
    else await bench.stack.start(target);
  } catch (error) {
    fault.error = error instanceof Error ? error.message : String(error);
  }
  fault.readyAt = now();
  fault.windowEnd = fault.readyAt + SETTLE_S * 1000;
  return fault;
}

// ------------------------------------------------------------------------------------------------------ memory, CPU

interface MemorySample {
  /** Seconds since the start. */
  t: number;
  /** MiB by process name; `pid` to tell a restarted process's samples apart. */
  processes: Record<string, { pid: number; mib: number }>;
  /** CPU seconds per second of the interval: the whole machine, and the part that was not this run's processes. */
  machineCpu: number;
  notOursCpu: number;
}

/** Proportional set size of a process in MiB (shared pages split among their users: PostgreSQL's shared buffers). */
function pssMiB(pid: number): number {
  try {
    const kib = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1];
    return kib === undefined ? 0 : Number(kib) / 1024;
  } catch {
    return 0;
  }
}

function memorySampler(bench: BenchStack, now: () => number) {
  const names = ["gateway", ...faultTargets().filter((name) => name !== "rabbitmq" && name !== "postgres" && name !== "gateway")];
  const samples: MemorySample[] = [];
  let lastCpu = new Map<number, number>();
  let lastMachine = machineBusySeconds();
  let lastAt = now();
  const take = () => {
    const ours = descendants(processes());
    const cpu = new Map(ours.map((p) => [p.pid, cpuSeconds(p.pid)]));
    let oursDelta = 0;
    for (const [pid, seconds] of cpu) oursDelta += seconds - (lastCpu.get(pid) ?? 0);
    oursDelta += cpuSeconds(process.pid) - (lastCpu.get(process.pid) ?? 0);
    cpu.set(process.pid, cpuSeconds(process.pid));
    const machine = machineBusySeconds();
    const elapsed = Math.max(0.001, (now() - lastAt) / 1000);
    const sample: MemorySample = {
      t: round(now() / 1000, 0),
      processes: {},
      machineCpu: round((machine - lastMachine) / elapsed, 2),
      notOursCpu: round(Math.max(0, machine - lastMachine - oursDelta) / elapsed, 2),
    };
    lastCpu = cpu;
    lastMachine = machine;
    lastAt = now();
    for (const name of names) {
      const pid = bench.stack.pid(name);
      if (pid !== undefined) sample.processes[name] = { pid, mib: rssMiB(pid) };
    }
    sample.processes["soak client"] = { pid: process.pid, mib: rssMiB(process.pid) };
    const postgres = ours.filter((p) => p.comm === "postgres");
    const postmaster = postgres.find((p) => !postgres.some((other) => other.pid === p.ppid));
    if (postmaster) sample.processes.postgres = { pid: postmaster.pid, mib: round(postgres.reduce((sum, p) => sum + pssMiB(p.pid), 0)) };
    const beam = ours.find((p) => p.comm.startsWith("beam"));
    if (beam) sample.processes.rabbitmq = { pid: beam.pid, mib: rssMiB(beam.pid) };
    samples.push(sample);
  };
  take();
  const timer = setInterval(take, SAMPLE_S * 1000);
  return {
    samples,
    stop: () => {
      clearInterval(timer);
      take();
    },
  };
}

interface MemoryVerdict {
  process: string;
  /** The samples judged: the longest run of one pid after warm-up (a restart starts a new process). */
  samples: number;
  fromS: number;
  toS: number;
  firstThirdMiB: number;
  lastThirdMiB: number;
  firstThirdMaxMiB: number;
  lastThirdMaxMiB: number;
  maxMiB: number;
  slopeMiBPerMin: number;
  verdict: "flat" | "growing" | "too short";
}

/** The shortest stretch of one process's samples the memory verdict judges, in seconds. */
const MIN_JUDGED_S = 240;

/**
 * Flat after warm-up: over the longest stretch one process (pid) ran after the warm-up (and after its own
 * restart's warm-up), the highest sample of the last third is within max(8 MiB, 10 %) of the first third's. The
 * highest, not the mean: a Node process's RSS is a saw-tooth (the young generation fills and is collected), and a
 * leak raises its peaks, while a first third caught in the troughs would read as growth (seen: study 145-202 MiB
 * in the first minutes, then 208-209 for five minutes).
 */
function memoryVerdicts(samples: MemorySample[]): MemoryVerdict[] {
  const names = [...new Set(samples.flatMap((sample) => Object.keys(sample.processes)))];
  return names.map((name) => {
    const points = samples.flatMap((sample) => (sample.processes[name] ? [{ t: sample.t, ...sample.processes[name] }] : []));
    const runs = new Map<number, typeof points>();
    for (const point of points) runs.set(point.pid, [...(runs.get(point.pid) ?? []), point]);
    const judged = [...runs.values()]
      .map((run) => run.filter((point) => point.t >= Math.max(WARMUP_S, run[0].t + WARMUP_S) && Number.isFinite(point.mib)))
      .sort((a, b) => b.length - a.length)[0];
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    // A stretch under MIN_JUDGED_S is a warm-up more than a trend (a process restarted by a fault climbs back to
    // its plateau for minutes): not judged.
    if (judged.length < 6 || judged[judged.length - 1].t - judged[0].t < MIN_JUDGED_S) {
      return {
        process: name,
        samples: judged.length,
        fromS: judged[0]?.t ?? NaN,
        toS: judged.at(-1)?.t ?? NaN,
        firstThirdMiB: NaN,
        lastThirdMiB: NaN,
        firstThirdMaxMiB: NaN,
        lastThirdMaxMiB: NaN,
        maxMiB: NaN,
        slopeMiBPerMin: NaN,
        verdict: "too short",
      };
    }
    const third = Math.floor(judged.length / 3);
    const first = mean(judged.slice(0, third).map((point) => point.mib));
    const last = mean(judged.slice(-third).map((point) => point.mib));
    const firstMax = Math.max(...judged.slice(0, third).map((point) => point.mib));
    const lastMax = Math.max(...judged.slice(-third).map((point) => point.mib));
    const tMean = mean(judged.map((point) => point.t));
    const mMean = mean(judged.map((point) => point.mib));
    const slope =
      judged.reduce((sum, point) => sum + (point.t - tMean) * (point.mib - mMean), 0) /
      judged.reduce((sum, point) => sum + (point.t - tMean) ** 2, 0);
    return {
      process: name,
      samples: judged.length,
      fromS: judged[0].t,
      toS: judged[judged.length - 1].t,
      firstThirdMiB: round(first),
      lastThirdMiB: round(last),
      firstThirdMaxMiB: round(firstMax),
      lastThirdMaxMiB: round(lastMax),
      maxMiB: round(Math.max(...judged.map((point) => point.mib))),
      slopeMiBPerMin: round(slope * 60, 2),
      verdict: lastMax - firstMax <= Math.max(8, firstMax * 0.1) ? "flat" : "growing",
    };
  });
}

// ------------------------------------------------------------------------------------------------------ report

const overlaps = (outcome: Outcome, fault: Fault) => outcome.at <= fault.windowEnd && outcome.at + outcome.ms >= fault.killAt;
const is5xx = (outcome: Outcome) => typeof outcome.status === "number" && outcome.status >= 500;

interface RouteRow {
  route: string;
  requests: number;
  "2xx": number;
  "4xx": number;
  "5xx in fault": number;
  "5xx outside": number;
  "no answer in fault": number;
  "no answer outside": number;
  "timed out": number;
  "not enveloped": number;
  p50: number;
  p99: number;
  max: number;
  deadline: number;
  "4xx codes": string;
}

function routeTable(outcomes: Outcome[], faults: Fault[]): RouteRow[] {
  const inFault = (outcome: Outcome) => faults.some((fault) => overlaps(outcome, fault));
  const byRoute = new Map<string, Outcome[]>();
  for (const outcome of outcomes) byRoute.set(outcome.route, [...(byRoute.get(outcome.route) ?? []), outcome]);
  return [...byRoute.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([route, list]) => {
      const times = list.map((outcome) => outcome.ms).sort((a, b) => a - b);
      const codes = new Map<string, number>();
      for (const outcome of list) {
        if (typeof outcome.status === "number" && outcome.status >= 400 && outcome.status < 500) {
          const key = `${outcome.status} ${outcome.code ?? "?"}`;
          codes.set(key, (codes.get(key) ?? 0) + 1);
        }
      }
      return {
        route,
        requests: list.length,
        "2xx": list.filter((o) => typeof o.status === "number" && o.status < 300).length,
        "4xx": list.filter((o) => typeof o.status === "number" && o.status >= 400 && o.status < 500).length,
        "5xx in fault": list.filter((o) => is5xx(o) && inFault(o)).length,
        "5xx outside": list.filter((o) => is5xx(o) && !inFault(o)).length,
        "no answer in fault": list.filter((o) => o.status === "network" && inFault(o)).length,
        "no answer outside": list.filter((o) => o.status === "network" && !inFault(o)).length,
        "timed out": list.filter((o) => o.status === "timeout").length,
        "not enveloped": list.filter((o) => o.envelope === false).length,
        p50: round(percentile(times, 50)),
        p99: round(percentile(times, 99)),
        max: round(times[times.length - 1]),
        deadline: list[0].deadlineMs,
        "4xx codes": [...codes.entries()].map(([code, count]) => `${code}×${count}`).join(" "),
      };
    });
}

interface FaultRow {
  target: string;
  killAtS: number;
  downS: number;
  restartS: number;
  requests: number;
  "2xx": number;
  "HTTP 503": number;
  "HTTP 504": number;
  "HTTP 500": number;
  "other 5xx": number;
  "no answer": number;
  "timed out": number;
  "not enveloped": number;
  maxMs: number;
  /** Seconds after the restart was ready when the last 5xx of the window was answered (how long clients noticed). */
  last5xxAfterReadyS: number | null;
  error?: string;
}

function faultTable(outcomes: Outcome[], faults: Fault[]): FaultRow[] {
  return faults.map((fault) => {
    const list = outcomes.filter((outcome) => overlaps(outcome, fault));
    const status = (code: number) => list.filter((o) => o.status === code).length;
    const fiveHundreds = list.filter(is5xx);
    const last = fiveHundreds.reduce((latest, o) => Math.max(latest, o.at + o.ms), -Infinity);
    return {
      target: fault.target,
      killAtS: round(fault.killAt / 1000),
      downS: round((fault.restartAt - fault.killAt) / 1000),
      restartS: round((fault.readyAt - fault.restartAt) / 1000),
      requests: list.length,
      "2xx": list.filter((o) => typeof o.status === "number" && o.status < 300).length,
      "HTTP 503": status(503),
      "HTTP 504": status(504),
      "HTTP 500": status(500),
      "other 5xx": fiveHundreds.length - status(500) - status(503) - status(504),
      "no answer": list.filter((o) => o.status === "network").length,
      "timed out": list.filter((o) => o.status === "timeout").length,
      "not enveloped": list.filter((o) => o.envelope === false).length,
      maxMs: round(list.reduce((max, o) => Math.max(max, o.ms), 0)),
      last5xxAfterReadyS: fiveHundreds.length ? round((last - fault.readyAt) / 1000) : null,
      ...(fault.error ? { error: fault.error } : {}),
    };
  });
}

/** A table cell: numbers and strings as they are, anything else as JSON. */
const cell = (value: unknown): string =>
  value === undefined || value === null ? "" : typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value);

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "(none)";
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i].length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i])).join("  ");
  return [line(columns), line(widths.map((width) => "-".repeat(width))), ...cells.map(line)].join("\n");
}

function markdownTable(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return "(none)";
  const columns = Object.keys(rows[0]);
  const escape = (value: unknown) => cell(value).replace(/\|/g, "\\|");
  return [
    `| ${columns.join(" | ")} |`,
    `|${columns.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${columns.map((c) => escape(row[c])).join(" | ")} |`),
  ].join("\n");
}

// ------------------------------------------------------------------------------------------------------ drain

/** Waits until nothing is left to do: outboxes published, queues empty, jobs finished — twice in a row. */
async function drain(
  bench: BenchStack,
  query: ReturnType<typeof databases>["query"],
  consumers: string[],
): Promise<{ seconds: number; drained: boolean; last: string }> {
  const started = performance.now();
  let calm = 0;
  let last = "";
  while (performance.now() - started < DRAIN_S * 1000) {
    try {
      const outbox = Object.values(await pendingOutbox(query)).reduce((sum, count) => sum + count, 0);
      const depths = await queueDepths(bench.infrastructure.rabbitmq.url, bench.exchange, consumers);
      const queued = Object.values(depths).reduce((sum, depth) => sum + depth.main + depth.retry, 0);
      const jobs = await unfinishedJobs(query);
      last = `${outbox} unpublished, ${queued} queued, ${jobs.imports.length} imports and ${jobs.documents.length} documents unfinished`;
      calm = outbox === 0 && queued === 0 && jobs.imports.length === 0 && jobs.documents.length === 0 ? calm + 1 : 0;
      if (calm >= 2) return { seconds: round((performance.now() - started) / 1000), drained: true, last };
    } catch (error) {
      last = `not readable yet: ${error instanceof Error ? error.message : String(error)}`;
      calm = 0;
    }
    await sleep(2_000);
  }
  return { seconds: round((performance.now() - started) / 1000), drained: false, last };
}

// ------------------------------------------------------------------------------------------------------ main

async function main() {
  const baseDir = mkdtempSync(join(tmpdir(), "bench-soak-"));
  const { steps: cleanups, cleanup } = cleanupOnExit(say, () => rmSync(baseDir, { recursive: true, force: true }));
  const logs: string[] = [];
  const appErrors: string[] = [];
  const errorLines = new Map<string, number>();
  // Set when traffic starts: log lines are stamped in the soak's seconds.
  let startedAtS = performance.now() / 1000;
  try {
    const machine = { cores: cpus().length, memoryGiB: round(totalmem() / 1024 ** 3), loadBefore: loadavg().map((v) => round(v, 2)) };
    say(`machine: ${machine.cores} cores, ${machine.memoryGiB} GiB, load ${machine.loadBefore.join(" ")}`);
    say(`${USERS} users, ${RATE} requests/s for ${MINUTES} min${FAULTS ? " with faults" : " without faults"}, seed ${SEED}; starting the stack…`);
    const bench = await startBenchStack(baseDir, logs, cleanups, {
      durableCommits: true,
      env: {
        GRPC_DEADLINE_MS: String(DEADLINES.grpc),
        STUDY_GENERATION_DEADLINE_MS: String(DEADLINES.generation),
        UPLOAD_REQUEST_TIMEOUT_MS: String(DEADLINES.upload),
        UPLOAD_IDLE_TIMEOUT_MS: String(DEADLINES.upload / 2),
        // The users come from one address here; in production each from its own.
        AUTH_RATE_LIMIT_PER_MINUTE: "1000000",
        CALENDAR_REMINDER_POLL_MS: "5000",
        MEDIA_STORAGE_DIR: join(baseDir, "media"),
        MEDIA_WORK_DIR: join(baseDir, "media-work"),
        DOCUMENTS_STORAGE_DIR: join(baseDir, "documents"),
        DOCUMENTS_WORK_DIR: join(baseDir, "documents-work"),
      },
      // What the apps say beyond their JSON warnings: fatal lines and anything that is not a log record (a crash's
      // stack trace on stderr); error records are counted per app (every 503 during a fault logs one).
      onLog: (app, line) => {
        if (/"level":"error"/.test(line)) errorLines.set(app, (errorLines.get(app) ?? 0) + 1);
        else if ((/"level":"fatal"/.test(line) || !line.startsWith("{")) && appErrors.length < 500) {
          appErrors.push(`${round(performance.now() / 1000 - startedAtS, 0)} s [${app}] ${line.slice(0, 800)}`);
        }
      },
    });
    const db = databases(bench.databaseUrl);
    cleanups.push(() => db.close());
    const started = performance.now();
    startedAtS = started / 1000;
    const now = () => performance.now() - started;
    const client = new SoakClient(bench.stack.gatewayUrl, DEADLINES, started);
    const random = seededRandom(SEED);
    const traffic = new Traffic(client, { users: USERS, random, audio: readFileSync(librivoxClip("0880")), uploadEveryMs: UPLOAD_EVERY_S * 1000 });
    const memory = memorySampler(bench, now);
    say("stack ready; traffic starts");

    // The faults, one at a time after the warm-up.
    const faults: Fault[] = [];
    let currentFault = "";
    const faultRun = (async () => {
      if (!FAULTS) return;
      await sleep(WARMUP_S * 1000);
      for (const target of faultTargets().filter((name) => !TARGETS || TARGETS.includes(name))) {
        currentFault = target;
        say(`fault: SIGKILL ${target}`);
        const fault = await injectFault(bench, target, now);
        faults.push(fault);
        say(`fault: ${target} back after ${round((fault.readyAt - fault.killAt) / 1000)} s${fault.error ? ` (error: ${fault.error})` : ""}`);
        currentFault = "";
        await sleep(QUIET_S * 1000);
      }
    })();

    // A crashed app is restarted as an orchestrator would, and counted: no app may exit unless a fault killed it.
    const crashes: { app: string; atS: number; restartedAfterS: number }[] = [];
    const apps = ["gateway", ...faultTargets().filter((name) => name !== "rabbitmq" && name !== "postgres" && name !== "gateway")];
    let watching = true;
    const watchdog = (async () => {
      while (watching) {
        await sleep(1_000);
        for (const app of apps) {
          const pid = bench.stack.pid(app);
          if (!watching || app === currentFault || pid === undefined || Number.isFinite(rssMiB(pid))) continue;
          const at = now();
          say(`${app} exited on its own at ${round(at / 1000)} s: restarting it`);
          await bench.stack.start(app).catch((error: unknown) => say(`restarting ${app}: ${error instanceof Error ? error.message : String(error)}`));
          crashes.push({ app, atS: round(at / 1000), restartedAfterS: round((now() - at) / 1000) });
        }
      }
    })();

    // Open loop: arrivals on a Poisson schedule, whatever the answers do.
    const clientErrors: string[] = [];
    // Traffic runs --minutes, and at least --tail seconds past the last fault when the faults need longer.
    let faultsDoneAt = FAULTS ? Infinity : 0;
    void faultRun.finally(() => (faultsDoneAt = now()));
    let next = 0;
    let lastReport = 0;
    for (;;) {
      const t = now();
      if (t >= Math.max(MINUTES * 60_000, faultsDoneAt + TAIL_S * 1000)) break;
      if (t >= next) {
        traffic.tick().catch((error: unknown) => {
          if (clientErrors.length < 50) clientErrors.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
        });
        next += -Math.log(1 - random()) * (1000 / RATE);
        continue;
      }
      if (t - lastReport >= 10_000) {
        const outcomes = client.outcomes;
        // The failures of the last interval, most frequent first: what to look at while it runs.
        const failures = new Map<string, number>();
        for (const o of outcomes) {
          if (o.at + o.ms < lastReport || (typeof o.status === "number" && o.status < 400)) continue;
          const key = `${o.route} ${o.status}${o.code ? ` ${o.code}` : ""}`;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
        const top = [...failures.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3);
        lastReport = t;
        say(
          `${round(t / 1000, 0)} s: ${outcomes.length} answered, ${outcomes.filter(is5xx).length} 5xx, ${client.pending()} in flight, ${traffic.users.filter((u) => u.token).length}/${USERS} users${currentFault ? `, fault: ${currentFault}` : ""}${top.length ? ` · ${top.map(([key, count]) => `${key}×${count}`).join(", ")}` : ""}`,
        );
      }
      await sleep(Math.min(50, next - t));
    }
    const trafficSeconds = round(now() / 1000);
    say(`traffic stopped at ${trafficSeconds} s; waiting for answers in flight…`);
    await client.idle();
    await faultRun;
    watching = false;
    await watchdog;

    let bindings: Map<string, Set<string>>;
    let bindingsFrom = "the broker (rabbitmqctl list_bindings)";
    try {
      bindings = consumerBindings(
        {
          ctl: ["/usr/lib/rabbitmq/bin/rabbitmqctl", "-n", `study-${new URL(bench.infrastructure.rabbitmq.url).port}@localhost`],
          env: { ...process.env, HOME: join(baseDir, "rabbitmq") },
        },
        bench.exchange,
      );
    } catch (error) {
      // Without rabbitmqctl: the types each consumer's inbox shows it handled (a type lost whole would not show).
      bindingsFrom = `the inboxes (rabbitmqctl failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)})`;
      bindings = new Map();
      for (const app of ["gateway", ...CATALOGUE.map((entry) => entry.name)]) {
        for (const row of await db.query<{ consumer: string; type: string }>(app, "SELECT DISTINCT consumer, type FROM inbox_message")) {
          bindings.set(row.consumer, (bindings.get(row.consumer) ?? new Set()).add(row.type));
        }
      }
    }
    const consumers = [...bindings.keys()].sort();
    say(`draining (consumers: ${consumers.join(", ")})…`);
    const drained = await drain(bench, db.query, consumers);
    say(`drain: ${drained.drained ? "done" : "NOT done"} in ${drained.seconds} s (${drained.last})`);
    memory.stop();
    const depths = await queueDepths(bench.infrastructure.rabbitmq.url, bench.exchange, consumers);
    // Lost updates: each note's stored user notes must be one of the lists the gateway accepted for it.
    const typedNotes = traffic.users.flatMap((user) => user.notes.filter((note) => note.savedUserNotes.length > 0));
    const storedNotes = await db.query<{ id: string; first: string | null }>(
      "media",
      "SELECT id::text, user_notes -> 0 ->> 'content' AS first FROM note WHERE id = ANY($1::uuid[])",
      [typedNotes.map((note) => note.id)],
    );
    const storedFirst = new Map(storedNotes.map((row) => [row.id, row.first]));
    const lostUserNotes = typedNotes.filter((note) => storedFirst.has(note.id) && !note.savedUserNotes.includes(storedFirst.get(note.id) ?? ""));
    const checks: Check[] = await consistencyChecks({
      query: db.query,
      bindings,
      dlq: Object.fromEntries(Object.entries(depths).map(([consumer, depth]) => [consumer, depth.dlq])),
    });

    // ---- figures and verdicts
    const outcomes = client.outcomes;
    const routes = routeTable(outcomes, faults);
    const faultRows = faultTable(outcomes, faults);
    const memoryRows = memoryVerdicts(memory.samples);
    const inAnyFault = (o: Outcome) => faults.some((fault) => overlaps(o, fault));
    const gatewayFault = faults.find((fault) => fault.target === "gateway");
    const pastDeadline = outcomes.filter((o) => o.ms > o.deadlineMs);
    const verdicts: Check[] = [
      {
        name: "http: no 5xx outside the fault windows",
        ok: !outcomes.some((o) => is5xx(o) && !inAnyFault(o)),
        summary: `${outcomes.filter((o) => is5xx(o) && !inAnyFault(o)).length} of ${outcomes.filter((o) => !inAnyFault(o)).length} requests`,
        problems: outcomes
          .filter((o) => is5xx(o) && !inAnyFault(o))
          .slice(0, 5)
          .map((o) => `${o.route} → ${o.status} ${o.code ?? ""} at ${round(o.at / 1000)} s`),
      },
      {
        name: "http: during faults only 503/504 (or success), in the envelope",
        ok: !outcomes.some((o) => inAnyFault(o) && is5xx(o) && o.status !== 503 && o.status !== 504) && !outcomes.some((o) => o.envelope === false),
        summary: `${outcomes.filter((o) => inAnyFault(o) && is5xx(o) && o.status !== 503 && o.status !== 504).length} other 5xx in fault windows; ${outcomes.filter((o) => o.envelope === false).length} error answers without the envelope`,
        problems: outcomes
          .filter((o) => (inAnyFault(o) && is5xx(o) && o.status !== 503 && o.status !== 504) || o.envelope === false)
          .slice(0, 8)
          .map(
            (o) =>
              `${o.route} → ${o.status} ${o.code ?? "(no envelope)"} at ${round(o.at / 1000)} s (${faults.find((f) => overlaps(o, f))?.target ?? "no fault"})`,
          ),
      },
      {
        name: "http: an answer for every request (none refused or reset, except while the gateway itself was down)",
        ok: !outcomes.some((o) => o.status === "network" && !(gatewayFault && overlaps(o, gatewayFault))),
        summary: `${outcomes.filter((o) => o.status === "network").length} without an answer, ${gatewayFault ? outcomes.filter((o) => o.status === "network" && overlaps(o, gatewayFault)).length : 0} of them while the gateway was down`,
        problems: outcomes
          .filter((o) => o.status === "network" && !(gatewayFault && overlaps(o, gatewayFault)))
          .slice(0, 5)
          .map((o) => `${o.route} at ${round(o.at / 1000)} s (${faults.find((f) => overlaps(o, f))?.target ?? "no fault"})`),
      },
      {
        name: "http: nobody waited past the deadline",
        ok: pastDeadline.length === 0,
        summary: `${pastDeadline.length} answers later than their route's deadline (${outcomes.filter((o) => o.status === "timeout").length} given up by the client at deadline + ${SLACK_MS} ms); max ${round(Math.max(...outcomes.map((o) => o.ms)))} ms`,
        problems: pastDeadline
          .slice(0, 5)
          .map(
            (o) =>
              `${o.route} ${round(o.ms)} ms > ${o.deadlineMs} ms (${o.status}) at ${round(o.at / 1000)} s (${faults.find((f) => overlaps(o, f))?.target ?? "no fault"})`,
          ),
      },
      {
        name: "processes: none exited unless a fault killed it",
        ok: crashes.length === 0,
        summary: `${crashes.length} exits (each restarted by the soak, as an orchestrator would)`,
        problems: crashes.map((crash) => `${crash.app} at ${crash.atS} s (running again ${crash.restartedAfterS} s later)`),
      },
      {
        // PostgreSQL's PSS takes in its shared buffers as backends touch them: a cache filling up to
        // shared_buffers while the data grows, shown but not judged.
        name: "memory: flat after warm-up (PostgreSQL shown, not judged)",
        ok: memoryRows.every((row) => row.verdict !== "growing" || row.process === "postgres"),
        summary: memoryRows.map((row) => `${row.process} ${row.verdict}`).join(", "),
        problems: memoryRows
          .filter((row) => row.verdict === "growing" && row.process !== "postgres")
          .map(
            (row) =>
              `${row.process}: highest ${row.firstThirdMaxMiB} → ${row.lastThirdMaxMiB} MiB (means ${row.firstThirdMiB} → ${row.lastThirdMiB})`,
          ),
      },
      {
        name: "media: every note keeps the user notes last accepted for it (no lost update)",
        ok: lostUserNotes.length === 0,
        summary: `${storedFirst.size} notes with user notes saved (200), ${lostUserNotes.length} holding a list never accepted for them`,
        problems: lostUserNotes
          .slice(0, 5)
          .map(
            (note) =>
              `note ${note.id}: stored "${(storedFirst.get(note.id) ?? "(none)").slice(0, 60)}" after ${note.savedUserNotes.length} accepted saves`,
          ),
      },
      { name: "drain: everything settled", ok: drained.drained, summary: `${drained.seconds} s: ${drained.last}`, problems: [] },
      ...checks,
    ];

    const totals = {
      requests: outcomes.length,
      perSecond: round(outcomes.length / trafficSeconds, 2),
      "2xx": outcomes.filter((o) => typeof o.status === "number" && o.status < 300).length,
      "4xx": outcomes.filter((o) => typeof o.status === "number" && o.status >= 400 && o.status < 500).length,
      "5xx": outcomes.filter(is5xx).length,
      "5xx in fault windows": outcomes.filter((o) => is5xx(o) && inAnyFault(o)).length,
      "no answer": outcomes.filter((o) => o.status === "network").length,
      "timed out": outcomes.filter((o) => o.status === "timeout").length,
    };
    const cpuSamples = memory.samples.slice(1);
    const cpu = {
      machineMean: round(cpuSamples.reduce((s, x) => s + x.machineCpu, 0) / Math.max(1, cpuSamples.length), 2),
      notOursMean: round(cpuSamples.reduce((s, x) => s + x.notOursCpu, 0) / Math.max(1, cpuSamples.length), 2),
      notOursMax: round(Math.max(0, ...cpuSamples.map((x) => x.notOursCpu)), 2),
    };
    const users = traffic.users;
    const made = {
      usersSignedUp: users.filter((u) => u.token).length,
      courses: users.reduce((s, u) => s + u.courses.length, 0),
      notes: users.reduce((s, u) => s + u.notes.length, 0),
      notesTranscribed: users.reduce((s, u) => s + u.notes.filter((n) => n.transcribed).length, 0),
      documents: users.reduce((s, u) => s + u.documents.length, 0),
      events: users.reduce((s, u) => s + u.events.length, 0),
      material: users.reduce((s, u) => s + u.material.length, 0),
      referrals: users.filter((u) => u.referral !== "none").length,
      trials: users.filter((u) => u.referral === "trial").length,
    };

    say(`requests: ${JSON.stringify(totals)}`);
    say(`made (as the clients know it): ${JSON.stringify(made)}`);
    say(`CPU: machine ${cpu.machineMean} cores busy on average, ${cpu.notOursMean} of them not this run's (max ${cpu.notOursMax})`);
    process.stdout.write(`\nper route (ms):\n${table(routes.map((row) => ({ ...row })))}\n`);
    if (faultRows.length)
      process.stdout.write(`\nfaults:\n${table(faultRows.map((row) => ({ ...row, last5xxAfterReadyS: row.last5xxAfterReadyS ?? "" })))}\n`);
    process.stdout.write(`\nmemory (MiB; RSS, PostgreSQL: PSS summed over its processes):\n${table(memoryRows.map((row) => ({ ...row })))}\n`);
    process.stdout.write(`\nverdicts (bindings from ${bindingsFrom}):\n`);
    for (const verdict of verdicts) {
      process.stdout.write(`${verdict.ok ? "PASS" : "FAIL"}  ${verdict.name}: ${verdict.summary}\n`);
      for (const problem of verdict.problems) process.stdout.write(`        ${problem}\n`);
    }
    if (clientErrors.length) process.stdout.write(`\nsoak client errors (bugs of the soak itself):\n${clientErrors.slice(0, 5).join("\n")}\n`);

    mkdirSync(RESULTS_DIR, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const settings = {
      minutes: MINUTES,
      users: USERS,
      rate: RATE,
      seed: SEED,
      faults: FAULTS,
      warmupS: WARMUP_S,
      downS: DOWN_S,
      quietS: QUIET_S,
      settleS: SETTLE_S,
      sampleS: SAMPLE_S,
      deadlines: DEADLINES,
      uploadEveryS: UPLOAD_EVERY_S,
    };
    const json = join(RESULTS_DIR, `soak-${stamp}.json`);
    writeFileSync(
      json,
      `${JSON.stringify(
        {
          settings,
          machine: { ...machine, loadAfter: loadavg().map((v) => round(v, 2)) },
          trafficSeconds,
          totals,
          made,
          cpu,
          routes,
          faults: faultRows,
          memory: { verdicts: memoryRows, samples: memory.samples },
          drain: drained,
          crashes,
          bindings: Object.fromEntries([...bindings.entries()].map(([consumer, types]) => [consumer, [...types].sort()])),
          verdicts,
          appErrorRecordsPerApp: Object.fromEntries(errorLines),
          appOutput: appErrors,
          clientErrors,
        },
        null,
        2,
      )}\n`,
    );
    const markdown = join(RESULTS_DIR, `soak-${stamp}.md`);
    writeFileSync(
      markdown,
      [
        `# Soak ${stamp}`,
        "",
        `${USERS} users, ${RATE} requests/s (open loop, Poisson), ${trafficSeconds} s of traffic${FAULTS ? ", faults on" : ", no faults"}, seed ${SEED}; ` +
          `machine ${machine.cores} cores; CPU busy ${cpu.machineMean} cores on average, ${cpu.notOursMean} not this run's (other work on the machine: latency figures are noisy).`,
        "",
        `Requests: ${Object.entries(totals)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}.`,
        "",
        "## Verdicts",
        "",
        ...verdicts.flatMap((v) => [`- **${v.ok ? "PASS" : "FAIL"}** ${v.name}: ${v.summary}`, ...v.problems.map((p) => `  - ${p}`)]),
        "",
        "## Per route (ms)",
        "",
        markdownTable(routes.map((row) => ({ ...row }))),
        "",
        "## Faults",
        "",
        markdownTable(faultRows.map((row) => ({ ...row, last5xxAfterReadyS: row.last5xxAfterReadyS ?? "" }))),
        "",
        "## Memory",
        "",
        markdownTable(memoryRows.map((row) => ({ ...row }))),
        "",
      ].join("\n"),
    );
    say(`results: ${json}, ${markdown}`);
    if (appErrors.length)
      say(`${appErrors.length} fatal or non-JSON lines from the apps (in the JSON: appOutput); first ones:\n${appErrors.slice(0, 10).join("\n")}`);
  } finally {
    await cleanup();
  }
}

main().catch((error: unknown) => {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
