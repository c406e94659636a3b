import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { ensureDatabase } from "@study/db";
import { checkHealth, generateInternalAuthKeys, type InternalAuthKeys } from "@study/grpc";
import { CATALOGUE, GATEWAY_APP, processNamesOf, type Catalogue, type CatalogueEntry } from "@study/platform/catalogue";
import { freePort, waitFor } from "./ports";

export const REPO_ROOT = resolve(__dirname, "..", "..", "..");

/** How the stack runs one app: a catalogue service or the gateway. */
interface AppSpec {
  name: string;
  /** Folder holding dist/main.js and dist/migrate.js. */
  directory: string;
  /** Entry script relative to the repository (default `<directory>/dist/main.js`). */
  entry?: string;
  /** Setting through which the gateway finds this service ("" for the gateway itself). */
  addressVariable?: string;
  /**
   * More processes of the same app, started after it with its settings (e.g. the media worker). Each gets a
   * free port in `healthPortVariable` and is ready when `GET /health/live` answers there.
   */
  extraProcesses?: CatalogueEntry["extraProcesses"];
  /** Plain HTTP ports of the app (each given a free port) and the gateway settings that get their URLs. */
  http?: CatalogueEntry["http"];
}

const appOf = (entry: CatalogueEntry): AppSpec & { addressVariable: string } => ({
  name: entry.name,
  directory: entry.directory,
  addressVariable: entry.grpcAddressVariable,
  extraProcesses: entry.extraProcesses,
  http: entry.http,
});

/** Time a stopped process gets to exit on its own before SIGKILL. */
export const STOP_GRACE_MS = 10_000;
/**
 * V8 options of every app, as the Dockerfile sets them for production: a 32 MiB young generation (semi-space)
 * instead of 16. A request allocates much short-lived garbage (spans, gRPC and pg objects, JSON); a larger young
 * generation collects it less often: (c) 400–560 → 600–760 req/s, ≈ 40 MiB more RSS in the gateway
 * (docs/PERFORMANCE.md, #16).
 */
export const APP_NODE_OPTIONS = "--max-semi-space-size=32";
/**
 * How long a started process may take to answer its health check. A whole stack starts a dozen processes at once
 * (about 15 s on an idle 2-core machine, mostly module loading); CI runs two test files side by side, so a stack
 * may start while another stack starts or a worker transcribes. The bound only ends a hang: readiness itself is
 * polled, never waited out.
 */
const START_BOUND_MS = 90_000;

export type LogSink = (app: string, line: string) => void;

export interface StackOptions {
  /** Builds a database URL for a database name (created if missing). */
  databaseUrl(name: string): string;
  /** Prefix of the database names (tests use a unique one per suite). */
  databasePrefix?: string;
  rabbitmqUrl: string;
  exchange?: string;
  gatewayPort?: number;
  /** Settings given to every process (LOG_LEVEL, OTEL_*, ...) and to the gateway only. */
  env?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  /** Settings of one service (and its extra processes) over `env`, by service name. */
  serviceEnv?: Record<string, Record<string, string>>;
  log?: LogSink;
  /** Extra processes not to start (e.g. `media-worker` in tests that seed import jobs by hand). */
  without?: string[];
  /** The services to run (default: the catalogue in libs/platform); the gateway is always started. */
  catalogue?: Catalogue;
  /**
   * Names of the catalogue services a test needs (default: every one). The others are not started, and cost a
   * test nothing: the gateway and the running services still get an address for each, where nothing listens, so
   * a call to one fails as it does when that service is down (UNAVAILABLE, 503 through the gateway).
   */
  services?: string[];
  /** The gateway's entry script, relative to the repository (a test's gateway composed with its own catalogue). */
  gatewayEntry?: string;
  /** SIGKILL for a process that has not exited this long after SIGTERM (default STOP_GRACE_MS). */
  stopGraceMs?: number;
  /**
   * Migrated databases to copy, by app directory (see `createDatabaseTemplates`): an app whose directory is here
   * gets a copy of that database instead of a migration process of its own.
   */
  databaseTemplates?: Record<string, string>;
  /** The processes' keys (default: new ones each start); `npm start` keeps its own in the data directory. */
  internalAuth?: InternalAuthKeys;
}

interface RunningApp {
  spec: AppSpec;
  env: Record<string, string>;
  /** An extra process (see AppSpec.extraProcesses): its script and health port. */
  extra?: { script: string; healthPort: number };
  child?: ChildProcess;
}

export interface RunningStack {
  gatewayUrl: string;
  /** `host:port` of the gateway's own gRPC API (IdentityService). */
  gatewayGrpcAddress: string;
  /** `host:port` of each service's gRPC API, by service name (e.g. for seeding data a test cannot create over HTTP). */
  serviceAddresses: Record<string, string>;
  /**
   * Each process's INTERNAL_AUTH_KEY by process name, and the trust list: a test that calls a service over gRPC signs
   * as one of them (`signCallsAs`); another stack in front of these services is given the same.
   */
  internalAuth: InternalAuthKeys;
  /**
   * Stops one process — for tests of outages: SIGTERM (an orderly shutdown, SIGKILL after the grace period)
   * or SIGKILL (a crash: nothing of the process runs), and waits for it to exit.
   */
  stop(app: string, signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts a stopped process again with the same settings. */
  start(app: string): Promise<void>;
  /** Stops the gateway, then the extra processes, then the services; SIGKILL for any left at the grace period's end. */
  stopAll(): Promise<void>;
  /** The process id of a running app (e.g. to read its memory use), or undefined. */
  pid(app: string): number | undefined;
  /** The settings an app runs with (the stack's own, without the inherited environment), e.g. to start a replica. */
  envOf(app: string): Record<string, string>;
}

/** A gateway process started on its own (`startGatewayProcess`). */
export interface GatewayProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts one more gateway process with the given settings (PORT and GRPC_PORT are chosen here) and waits until it
 * answers `GET /health/live`: a replica of a stack's gateway, given that gateway's settings (`envOf`).
 */
export async function startGatewayProcess(env: Record<string, string>, log: LogSink = () => undefined): Promise<GatewayProcess> {
  const port = await freePort();
  const child = run(
    [`${GATEWAY_APP.directory}/dist/main.js`],
    { ...env, PORT: String(port), GRPC_PORT: String(await freePort()) },
    "gateway-replica",
    log,
  );
  const url = `http://127.0.0.1:${port}`;
  const exited = exitOf(child).then((code) => {
    throw new Error(`the gateway replica exited with code ${code} while starting`);
  });
  const live = () =>
    fetch(`${url}/health/live`).then(
      (response) => response.ok,
      () => false,
    );
  await Promise.race([waitFor("gateway-replica", live, START_BOUND_MS), exited]);
  // eslint-disable-next-line no-restricted-syntax -- only an exit while starting is an error; stop() ends it on purpose
  exited.catch(() => undefined);
  return {
    url,
    async stop() {
      if (hasExited(child)) return;
      const gone = exitOf(child);
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Every app process this module started and that still runs: killed if the runner exits without stopping them. */
const running = new Set<ChildProcess>();
const killRunning = () => running.forEach((child) => child.kill("SIGKILL"));

/**
 * Apps run in their own process group: a terminal's Ctrl-C (SIGINT to the foreground group) reaches the runner
 * only, which stops them in order, instead of every process at once.
 */
function run(command: string[], env: Record<string, string>, name: string, log: LogSink): ChildProcess {
  const child = spawn(process.execPath, command, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  // Listened to only while apps run, so that test files loading this module again add no listener each.
  if (running.size === 0) process.on("exit", killRunning);
  running.add(child);
  child.once("exit", () => {
    running.delete(child);
    if (running.size === 0) process.off("exit", killRunning);
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => log(name, line));
  }
  return child;
}

/** A process killed by a signal keeps `exitCode` null: it has exited when either is set. */
const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function exitOf(child: ChildProcess): Promise<number | null> {
  if (hasExited(child)) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Creates the app's database if missing and applies its migrations in a `dist/migrate.js` process. */
async function migrateDatabase(spec: AppSpec, env: Record<string, string>, log: LogSink): Promise<void> {
  await ensureDatabase(env.DATABASE_URL);
  const code = await exitOf(run([`${spec.directory}/dist/migrate.js`], env, `${spec.name}-migrate`, log));
  if (code !== 0) throw new Error(`migrations of ${spec.name} failed (exit ${code})`);
}

/**
 * Migrates one database per app of the catalogue and the gateway, named `<prefix><app>`, once: test stacks then
 * copy them (`databaseTemplates`) instead of running every app's migrations again. Nothing may connect to them
 * afterwards (PostgreSQL copies only a database nobody uses). Answers the templates by app directory.
 */
export async function createDatabaseTemplates(options: {
  databaseUrl(name: string): string;
  prefix: string;
  catalogue?: Catalogue;
  log?: LogSink;
}): Promise<Record<string, string>> {
  const specs: AppSpec[] = [...(options.catalogue ?? CATALOGUE).map(appOf), { name: GATEWAY_APP.name, directory: GATEWAY_APP.directory }];
  await Promise.all(
    specs.map((spec) =>
      migrateDatabase(spec, { DATABASE_URL: options.databaseUrl(`${options.prefix}${spec.name}`) }, options.log ?? (() => undefined)),
    ),
  );
  return Object.fromEntries(specs.map((spec) => [spec.directory, `${options.prefix}${spec.name}`]));
}

/**
 * Starts the whole system as separate processes: migrates each app's database and starts it (with its extra
 * processes), every app at once, and waits until each service's gRPC health says SERVING and the gateway and the
 * extra processes answer `GET /health/live`.
 */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const log = options.log ?? (() => undefined);
  const services = (options.catalogue ?? CATALOGUE).map(appOf);
  const gateway: AppSpec = { name: GATEWAY_APP.name, directory: GATEWAY_APP.directory, entry: options.gatewayEntry };
  const grace = options.stopGraceMs ?? STOP_GRACE_MS;
  const prefix = options.databasePrefix ?? "";
  // Every process signs its gRPC calls with a key of its own and trusts the others' (libs/grpc/src/internal-auth.ts).
  const internalAuth = options.internalAuth ?? generateInternalAuthKeys(processNamesOf(options.catalogue));
  const common = {
    NODE_OPTIONS: [process.env.NODE_OPTIONS, APP_NODE_OPTIONS].filter(Boolean).join(" "),
    // Internal ports answer on loopback only: nothing but the gateway's HTTP port is for other machines.
    INTERNAL_BIND_HOST: "127.0.0.1",
    INTERNAL_AUTH_PUBLIC_KEYS: internalAuth.publicKeys,
    // Signs the user id the gateway forwards with streamed uploads (shared by the gateway and media).
    INTERNAL_UPLOAD_SECRET: randomBytes(32).toString("hex"),
    RABBITMQ_URL: options.rabbitmqUrl,
    EVENT_EXCHANGE: options.exchange ?? "study.events",
    ...options.env,
  };
  const apps = new Map<string, RunningApp>();
  const unknown = (options.services ?? []).filter((name) => !services.some((spec) => spec.name === name));
  if (unknown.length) throw new Error(`unknown services ${unknown.join(", ")} (the catalogue has ${services.map((spec) => spec.name).join(", ")})`);
  const isStarted = (spec: AppSpec) => !options.services || options.services.includes(spec.name);

  const gatewayEnv: Record<string, string> = { ...common, ...options.gatewayEnv };
  const serviceAddresses: Record<string, string> = {};
  const grpcPorts = new Map<string, number>();
  for (const spec of services) {
    const port = await freePort();
    grpcPorts.set(spec.name, port);
    gatewayEnv[spec.addressVariable] = `127.0.0.1:${port}`;
    serviceAddresses[spec.name] = `127.0.0.1:${port}`;
  }
  const gatewayGrpcPort = await freePort();
  const gatewayGrpcAddress = `127.0.0.1:${gatewayGrpcPort}`;
  // Services find each other like the gateway finds them (e.g. media checks courses for uploads), and the
  // gateway's own gRPC API (IdentityService: the calendar's Google tokens).
  const addressEnv = {
    ...Object.fromEntries(services.map((spec) => [spec.addressVariable, serviceAddresses[spec.name]])),
    [GATEWAY_APP.grpcAddressVariable]: gatewayGrpcAddress,
  };
  for (const spec of services.filter(isStarted)) {
    const env: Record<string, string> = {
      ...addressEnv,
      ...common,
      GRPC_PORT: String(grpcPorts.get(spec.name)),
      DATABASE_URL: options.databaseUrl(`${prefix}${spec.name}`),
      INTERNAL_AUTH_KEY: internalAuth.privateKeys[spec.name],
      ...options.serviceEnv?.[spec.name],
    };
    for (const http of spec.http ?? []) {
      const httpPort = await freePort();
      env[http.portVariable] = String(httpPort);
      gatewayEnv[http.gatewayUrlVariable] ??= `http://127.0.0.1:${httpPort}`;
    }
    apps.set(spec.name, { spec, env });
    for (const extra of spec.extraProcesses ?? []) {
      const healthPort = await freePort();
      apps.set(extra.name, {
        spec,
        env: { ...env, [extra.healthPortVariable]: String(healthPort), INTERNAL_AUTH_KEY: internalAuth.privateKeys[extra.name] },
        extra: { script: extra.script, healthPort },
      });
    }
  }
  const gatewayPort = options.gatewayPort ?? (await freePort());
  apps.set(gateway.name, {
    spec: gateway,
    env: {
      ...gatewayEnv,
      PORT: String(gatewayPort),
      GRPC_PORT: String(gatewayGrpcPort),
      INTERNAL_AUTH_KEY: internalAuth.privateKeys[gateway.name],
      DATABASE_URL: options.databaseUrl(`${prefix}${gateway.name}`),
    },
  });
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;

  async function startApp(name: string): Promise<void> {
    const app = apps.get(name);
    if (!app) throw new Error(`unknown app ${name}`);
    if (app.child && !hasExited(app.child)) return;
    const entry = app.extra ? `${app.spec.directory}/${app.extra.script}` : (app.spec.entry ?? `${app.spec.directory}/dist/main.js`);
    const child = run([entry], app.env, name, log);
    app.child = child;
    const exited = exitOf(child).then((code) => {
      throw new Error(`${name} exited with code ${code} while starting`);
    });
    const liveAt = name === gateway.name ? gatewayUrl : app.extra ? `http://127.0.0.1:${app.extra.healthPort}` : null;
    const ready =
      liveAt !== null
        ? waitFor(
            name,
            () =>
              fetch(`${liveAt}/health/live`).then(
                (r) => r.ok,
                () => false,
              ),
            START_BOUND_MS,
          )
        : waitFor(name, async () => (await checkHealth(`127.0.0.1:${app.env.GRPC_PORT}`)) === "SERVING", START_BOUND_MS);
    await Promise.race([ready, exited]);
    // eslint-disable-next-line no-restricted-syntax -- only an exit while starting is an error; a later one is the caller's (stop, crash tests)
    exited.catch(() => undefined);
  }

  /** Gives the app its migrated database: a copy of its template, or its own migrations applied. */
  async function migrateApp(app: RunningApp): Promise<void> {
    const template = options.databaseTemplates?.[app.spec.directory];
    if (template) await ensureDatabase(app.env.DATABASE_URL, { template });
    else await migrateDatabase(app.spec, app.env, log);
  }

  /** SIGTERM (or SIGKILL), then SIGKILL at `killAt` if the process is still there; resolves once it has exited. */
  async function stopApp(name: string, signal: "SIGTERM" | "SIGKILL" = "SIGTERM", killAt = Date.now() + grace): Promise<void> {
    const app = apps.get(name);
    const child = app?.child;
    if (!child || hasExited(child)) return;
    child.kill(signal);
    const timer = setTimeout(
      () => {
        if (hasExited(child)) return;
        log(name, `did not exit within ${grace} ms of SIGTERM: SIGKILL`);
        child.kill("SIGKILL");
      },
      Math.max(0, killAt - Date.now()),
    );
    await exitOf(child);
    clearTimeout(timer);
  }

  const extraNames = services
    .flatMap((spec) => (spec.extraProcesses ?? []).map((extra) => extra.name))
    .filter((name) => apps.has(name) && !(options.without ?? []).includes(name));
  // Every app starts as soon as its own database is migrated, all at once: none needs another to be up to start
  // (gRPC channels connect lazily, consumers declare their own queues), and the gateway answers only after this.
  // Settled, not raced: on a failure, every process started meanwhile is stopped too.
  const started = await Promise.allSettled(
    [...apps.entries()]
      .filter(([, app]) => !app.extra)
      .map(async ([name, app]) => {
        await migrateApp(app);
        const extras = extraNames.filter((extra) => apps.get(extra)?.spec.name === name);
        await Promise.all([name, ...extras].map(startApp));
      }),
  );
  const failure = started.find((result) => result.status === "rejected");
  if (failure) {
    await Promise.all([...apps.keys()].map((name) => stopApp(name)));
    throw failure.reason;
  }

  return {
    gatewayUrl,
    gatewayGrpcAddress,
    serviceAddresses,
    internalAuth,
    start: startApp,
    stop: stopApp,
    pid: (name) => apps.get(name)?.child?.pid,
    envOf: (name) => {
      const app = apps.get(name);
      if (!app) throw new Error(`unknown app ${name}`);
      return { ...app.env };
    },
    async stopAll() {
      // One grace period for the whole stack, so that stopping is bounded however many processes there are.
      const killAt = Date.now() + grace;
      await stopApp(gateway.name, "SIGTERM", killAt);
      await Promise.all(extraNames.map((name) => stopApp(name, "SIGTERM", killAt)));
      await Promise.all(services.map((spec) => stopApp(spec.name, "SIGTERM", killAt)));
    },
  };
}
