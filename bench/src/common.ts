/**
 * What the benchmarks share: their command-line options, percentiles, and the whole stack started the same way
 * (PostgreSQL + RabbitMQ from libs/testkit in a temp folder, then every built app with `startStack`).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  freePort,
  signCallsAs,
  startInfrastructure,
  startStack,
  startStripeServer,
  type Infrastructure,
  type RunningStack,
  type StackOptions,
} from "@study/testkit";

/** The repository (the benches run from bench/dist) and where every bench writes its results. */
export const REPO_ROOT = resolve(__dirname, "..", "..");
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");

/**
 * A numeric `--name=value` option of the command line: at least `minimum` when one is given, else positive.
 */
export function option(name: string, fallback: number, minimum?: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const value = arg ? Number(arg.split("=")[1]) : fallback;
  if (minimum === undefined) {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  } else if (!Number.isFinite(value) || value < minimum) throw new Error(`--${name} must be a number of at least ${minimum}`);
  return value;
}

/** Nearest-rank percentile of sorted values (NaN when there are none). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

// ---------------------------------------------------------------------------------------------- processes (Linux /proc)

/** CPU seconds (user + system) used so far by a process, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // fields[11] = utime, fields[12] = stime (fields 14 and 15 of proc(5)), in clock ticks (USER_HZ = 100)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
}

export function processes(): ProcessInfo[] {
  const list: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      list.push({ pid: Number(entry), ppid, comm, cmdline });
      // eslint-disable-next-line no-restricted-syntax -- the process ended meanwhile: it is no longer listed
    } catch {}
  }
  return list;
}

/** The processes started, directly or not, by this one. */
export function descendants(all: ProcessInfo[]): ProcessInfo[] {
  const ours = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) if (!ours.has(p.pid) && ours.has(p.ppid)) grew = ours.add(p.pid) !== undefined;
  }
  return all.filter((p) => p.pid !== process.pid && ours.has(p.pid));
}

/** CPU seconds the whole machine spent busy (all cores; /proc/stat, everything but idle and iowait). */
export function machineBusySeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return (total - fields[3] - (fields[4] ?? 0)) / 100;
}

/** Resident memory of a process in MiB (VmRSS of /proc/<pid>/status); NaN when it is gone. */
export function rssMiB(pid: number): number {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib === undefined ? Number.NaN : Math.round((Number(kib) / 1024) * 10) / 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * The apps of a stack this process started, by name: `gateway`, a service by its folder (`courses`), a service's
 * extra process by its script (`media-worker` for services/media/dist/worker.js).
 */
export function stackApps(): Record<string, number> {
  const apps: Record<string, number> = {};
  for (const p of processes()) {
    if (p.ppid !== process.pid) continue;
    const match = /(?:^|[\s/])(gateway|services\/([\w-]+))\/dist\/([\w-]+)\.js/.exec(p.cmdline);
    if (!match) continue;
    const name = match[1] === "gateway" ? "gateway" : match[3] === "main" ? match[2] : `${match[2]}-${match[3]}`;
    apps[name] = p.pid;
  }
  return apps;
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

export interface BenchStack {
  infrastructure: Infrastructure;
  stack: RunningStack;
  /** The random part of this run's database names (`bench_<suffix>_<app>`) and exchange (`bench.<suffix>`). */
  suffix: string;
  exchange: string;
  /** URL of one app's database of this run. */
  databaseUrl: (app: string) => string;
}

/**
 * Starts PostgreSQL and RabbitMQ in `baseDir`, then the built apps (`LOG_LEVEL=warn`, `NODE_ENV=production`, as in
 * k8s/compose), registering their stop in `cleanups`. Log lines go to `logs` (the last 500 kept), which the error
 * of a failed start quotes.
 */
export async function startBenchStack(
  baseDir: string,
  logs: string[],
  cleanups: (() => unknown)[],
  extra: Pick<StackOptions, "env" | "gatewayEnv" | "without" | "gatewayEntry" | "services" | "serviceEnv"> & {
    onLog?: (app: string, line: string) => void;
    /** PostgreSQL that loses no acknowledged commit when killed (the soak's faults). */
    durableCommits?: boolean;
  } = {},
): Promise<BenchStack> {
  const infrastructure = await startInfrastructure(baseDir, (line) => logs.push(`[infra] ${line}`), {
    containers: false,
    durableCommits: extra.durableCommits,
  });
  cleanups.push(() => infrastructure.stop());
  const suffix = randomBytes(3).toString("hex");
  const exchange = `bench.${suffix}`;
  const gatewayPort = await freePort();
  // Billing needs Stripe: the test kit's stand-in, as in `npm start` and the tests. Billing refuses a stand-in (and a
  // test key) when NODE_ENV is production, so it alone runs as in the tests; the benchmarks do not measure it.
  const webhookSecret = `whsec_${randomBytes(24).toString("hex")}`;
  const stripe = await startStripeServer({ webhook: { url: `http://127.0.0.1:${gatewayPort}/api/billing/webhook`, secret: webhookSecret } });
  cleanups.push(() => stripe.close());
  const stack = await startStack({
    databaseUrl: (name) => infrastructure.postgres.databaseUrl(name),
    databasePrefix: `bench_${suffix}_`,
    rabbitmqUrl: infrastructure.rabbitmq.url,
    exchange,
    gatewayPort,
    env: { LOG_LEVEL: "warn", NODE_ENV: "production", ...extra.env },
    gatewayEnv: {
      AUTH_SECRET: randomBytes(32).toString("hex"),
      BASE_URL: `http://127.0.0.1:${gatewayPort}`,
      CLIENT_URL: "http://localhost:5173",
      MAIL_OUTBOX_DIR: join(baseDir, "mail"),
      ...extra.gatewayEnv,
    },
    without: extra.without,
    services: extra.services,
    serviceEnv: {
      ...extra.serviceEnv,
      billing: { NODE_ENV: "test", STRIPE_API_URL: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret },
    },
    gatewayEntry: extra.gatewayEntry,
    log: (app, line) => {
      extra.onLog?.(app, line);
      logs.push(`[${app}] ${line}`);
      if (logs.length > 500) logs.shift();
    },
  }).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.slice(-40).join("\n")}`, { cause: error });
  });
  cleanups.push(() => stack.stopAll());
  // The benchmarks' own gRPC calls (seeding, the fan-out and direct-call phases) go as the gateway's do: signed.
  signCallsAs(stack.internalAuth, "gateway");
  return {
    infrastructure,
    stack,
    suffix,
    exchange,
    databaseUrl: (app) => infrastructure.postgres.databaseUrl(`bench_${suffix}_${app}`),
  };
}
