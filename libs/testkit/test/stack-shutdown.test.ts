/**
 * Bounded shutdown of `npm start`: the stack runner (libs/testkit/dist/cli/start.js, so `npm run build`
 * first) with its own private PostgreSQL and RabbitMQ, stopped as a terminal's Ctrl-C stops it — SIGINT to
 * its whole process group, which stops the infrastructure and the apps at the same time. Every app must be
 * gone within the runner's grace period (once, a media process outlived such a stop for 25 minutes, holding its
 * ports), and the runner, PostgreSQL and RabbitMQ (stopped last) within the infrastructure's time limit after it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../src/ports";
import { INFRASTRUCTURE_STOP_LIMIT_MS } from "../src/infrastructure";
import { REPO_ROOT, STOP_GRACE_MS } from "../src/stack";

interface ProcessInfo {
  pid: number;
  parent: number;
  state: string;
  command: string;
}

function processTable(): Map<number, ProcessInfo> {
  const table = new Map<number, ProcessInfo>();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      table.set(Number(entry), { pid: Number(entry), parent: Number(parent), state, command });
      // eslint-disable-next-line no-restricted-syntax -- a process that ended while the table was read has no entry to give
    } catch {
      // the process ended while the table was read
    }
  }
  return table;
}

/** A process and everything it started (apps, PostgreSQL, RabbitMQ's Erlang VM and helpers). */
function descendantsOf(root: number): ProcessInfo[] {
  const table = processTable();
  const found = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const info of table.values()) {
      if (!found.has(info.pid) && found.has(info.parent)) {
        found.add(info.pid);
        grew = true;
      }
    }
  }
  return [...found].flatMap((pid) => table.get(pid) ?? []);
}

/**
 * Files and folders under `root` that users other than the owner may read or write, with their modes. Folders may
 * let others pass through (x): as root, PostgreSQL's server runs as another user, who must reach its data folder.
 */
function openToOthers(root: string): string[] {
  const open: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat || !(stat.isDirectory() || stat.isFile())) return;
    if (stat.mode & (stat.isDirectory() ? 0o076 : 0o077)) open.push(`${path.slice(root.length) || "/"} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) readdirSync(path).forEach((entry) => walk(join(path, entry)));
  };
  walk(root);
  return open;
}

/** Still running: present and not a zombie waiting to be reaped. */
const alive = (processes: ProcessInfo[]) => {
  const table = processTable();
  return processes.filter((p) => table.has(p.pid) && table.get(p.pid)!.state !== "Z");
};

describe("npm start: its data kept from other users, its API documented, and stopped with Ctrl-C while its infrastructure goes down", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "study-stack-shutdown-"));
  let runner: ChildProcess | undefined;
  let output = "";

  afterAll(() => {
    // Whatever the outcome, leave nothing behind (the group first, then any straggler found by pid).
    if (runner?.pid) {
      try {
        process.kill(-runner.pid, "SIGKILL");
        // eslint-disable-next-line no-restricted-syntax -- ESRCH: the group is already gone, which is what this clean-up wants
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`leaves no app running ${STOP_GRACE_MS / 1000} s after the stop (the grace period), and nothing at all once the infrastructure has stopped`, async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STUDY_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      POSTGRES_PORT: String(await freePort()),
      RABBITMQ_PORT: String(await freePort()),
      LOG_LEVEL: "warn",
    };
    // A private pair: the shared test servers must survive this test.
    delete env.POSTGRES_ADMIN_URL;
    delete env.RABBITMQ_URL;
    // A data directory an older version left readable by everyone, with an e-mailed reset link in it.
    chmodSync(dataDir, 0o755);
    mkdirSync(join(dataDir, "mail"), { mode: 0o755 });
    writeFileSync(join(dataDir, "mail", "earlier-reset-link.eml"), "Subject: Reset your password\n", { mode: 0o644 });
    // Its own process group, as a terminal gives a foreground job.
    runner = spawn(process.execPath, [join(REPO_ROOT, "libs/testkit/dist/cli/start.js")], {
      cwd: REPO_ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => runner!.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("ready in")) resolve();
      };
      runner!.stdout!.on("data", onData);
      runner!.stderr!.on("data", onData);
      void exited.then((code) => reject(new Error(`the stack exited with ${code} before it was ready:\n${output.slice(-3000)}`)));
    });

    const stack = descendantsOf(runner.pid!);
    const apps = stack.filter((p) => p.parent === runner!.pid && p.command === "node");
    // The runner, PostgreSQL, RabbitMQ and the apps (four services, the media worker, the gateway).
    expect(stack.map((p) => p.command)).toEqual(expect.arrayContaining(["postgres", "beam.smp"]));
    expect(apps.length).toBeGreaterThanOrEqual(6);
    // Sessions' secret, the processes' keys, e-mails, uploads, the databases: for the owner only (0700 and 0600).
    expect(openToOthers(dataDir)).toEqual([]);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(["auth-secret", "internal-auth-keys.json"]));
    // A newcomer finds the API's documentation at /docs.
    expect((await fetch(`http://127.0.0.1:${env.PORT}/docs/`)).status).toBe(200);

    const stoppedAt = Date.now();
    process.kill(-runner.pid!, "SIGINT");
    const until = async (processes: ProcessInfo[], deadline: number) => {
      while (alive(processes).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      return alive(processes).map((p) => `${p.pid} ${p.command}`);
    };
    expect({ appsLeft: await until(apps, stoppedAt + STOP_GRACE_MS) }).toEqual({ appsLeft: [] });
    expect({ left: await until(stack, stoppedAt + STOP_GRACE_MS + INFRASTRUCTURE_STOP_LIMIT_MS) }).toEqual({ left: [] });
    expect(await exited).toBe(0);
    expect(output).toContain("stopped");
  }, 240_000);
});
