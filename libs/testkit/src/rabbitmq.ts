import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { ensureAptPackages } from "./apt";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canConnect, freePort, waitFor } from "./ports";
import { killAndWait, processTreeOf } from "./process-kill";

export interface RunningRabbitMq {
  url: string;
  /** Stops the broker (data kept) — used by tests that check behaviour across a broker outage. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /**
   * A crash: SIGKILL for the node (its start script, the Erlang VM and its helpers), no orderly stop, waiting until
   * all are gone; `restart` brings it back (durable queues and confirmed persistent messages survive).
   */
  kill(): Promise<void>;
  /**
   * Writes the node's metadata log to disk. RabbitMQ keeps recent queue declarations in a write cache for up to
   * 2 s (Mnesia's disk_log), so a queue declared just before a crash may be gone after it; messages the broker
   * confirmed are on disk already.
   */
  syncMetadata(): Promise<void>;
}

const SERVER = "/usr/lib/rabbitmq/bin/rabbitmq-server";
const CTL = "/usr/lib/rabbitmq/bin/rabbitmqctl";

/** Installs Debian's rabbitmq-server when it is missing and we are root; otherwise explains what to do. */
export function ensureRabbitMqInstalled(log: (line: string) => void = () => undefined): void {
  ensureAptPackages([{ package: "rabbitmq-server", installs: SERVER }], log);
}

/**
 * A private RabbitMQ node (its own name, ports and data directory) so that it can run beside any other, or
 * the broker named by `RABBITMQ_URL` when set.
 */
export async function startRabbitMq(options: { baseDir: string; port?: number; log?: (line: string) => void }): Promise<RunningRabbitMq> {
  if (process.env.RABBITMQ_URL) {
    const url = process.env.RABBITMQ_URL;
    const unsupported = async () => {
      throw new Error("cannot stop an external broker (RABBITMQ_URL)");
    };
    return { url, stop: unsupported, restart: unsupported, kill: unsupported, syncMetadata: unsupported };
  }
  ensureRabbitMqInstalled(options.log);
  const port = options.port ?? (await freePort());
  const distPort = await freePort();
  const nodeName = `study-${port}@localhost`;
  mkdirSync(join(options.baseDir, "log"), { recursive: true });
  mkdirSync(join(options.baseDir, "mnesia"), { recursive: true });
  const configFile = join(options.baseDir, "rabbitmq.conf");
  writeFileSync(
    configFile,
    [
      "loopback_users = none",
      `listeners.tcp.default = 127.0.0.1:${port}`,
      // Development machines are often low on disk; don't block publishers at the default 50 MB.
      "disk_free_limit.absolute = 10MB",
      "",
    ].join("\n"),
  );
  const env = {
    ...process.env,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(options.baseDir, "mnesia"),
    RABBITMQ_LOG_BASE: join(options.baseDir, "log"),
    RABBITMQ_CONFIG_FILE: configFile.replace(/\.conf$/, ""),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(options.baseDir, "enabled_plugins"),
    RABBITMQ_PID_FILE: join(options.baseDir, "rabbitmq.pid"),
    // The Erlang cookie lives in HOME; a private one keeps this node independent of any other.
    HOME: options.baseDir,
  };
  writeFileSync(env.RABBITMQ_ENABLED_PLUGINS_FILE, "[].\n");

  let child: ChildProcess | undefined;
  const boot = async () => {
    // cwd: where Erlang writes erl_crash.dump if the node dies.
    const server = spawn(SERVER, [], { env, cwd: options.baseDir, stdio: "ignore", detached: false });
    child = server;
    const exited = new Promise<never>((_, reject) =>
      server.once("exit", (code) => reject(new Error(`rabbitmq-server exited with code ${code}; see ${env.RABBITMQ_LOG_BASE}`))),
    );
    await Promise.race([waitFor("RabbitMQ", () => canConnect(port), 60_000, 200), exited]);
    child.removeAllListeners("exit");
  };
  const halt = async () => {
    if (!child) return;
    const current = child;
    child = undefined;
    const exited = new Promise<void>((resolve) => current.once("exit", () => resolve()));
    try {
      execFileSync(CTL, ["-n", nodeName, "stop"], { env, stdio: "ignore", timeout: 30_000 });
    } catch {
      current.kill("SIGTERM");
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000).unref())]);
    if (current.exitCode === null) current.kill("SIGKILL");
  };
  const crash = async () => {
    const pid = child?.pid;
    if (pid === undefined) return;
    child = undefined;
    // The script runs the VM as a background job and waits for it: the whole tree goes at once.
    await killAndWait(processTreeOf(pid));
  };
  const syncMetadata = async () => {
    execFileSync(CTL, ["-n", nodeName, "eval", "mnesia:sync_log()."], { env, stdio: "ignore", timeout: 30_000 });
  };
  await boot();
  const cleanup = () => child?.kill("SIGTERM");
  process.once("exit", cleanup);
  return { url: `amqp://guest:guest@127.0.0.1:${port}`, stop: halt, restart: boot, kill: crash, syncMetadata };
}
