import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/**
 * SIGKILL for a server made of several processes (PostgreSQL's postmaster and backends, RabbitMQ's script,
 * Erlang VM and port helpers): what a crash or the OOM killer does, as opposed to the orderly stops the handles
 * offer. Linux only (/proc).
 */

interface ProcEntry {
  pid: number;
  ppid: number;
  state: string;
}

function procEntries(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      entries.push({ pid: Number(name), ppid: Number(ppid), state });
      // eslint-disable-next-line no-restricted-syntax -- the process ended while the table was read: it has no entry to give
    } catch {}
  }
  return entries;
}

/** A process and every process it started, directly or not (still running). */
export function processTreeOf(root: number): number[] {
  const entries = procEntries();
  const found = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of entries) if (!found.has(entry.pid) && found.has(entry.ppid)) grew = found.add(entry.pid) !== undefined;
  }
  return [...found].filter((pid) => entries.some((entry) => entry.pid === pid));
}

/**
 * The processes whose working directory is `dir`: a PostgreSQL cluster's postmaster and every backend of it
 * (they all chdir into the data directory), including backends already handed to init by a dead postmaster.
 */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of procEntries()) {
    try {
      if (readlinkSync(`/proc/${entry.pid}/cwd`) === dir) pids.push(entry.pid);
      // eslint-disable-next-line no-restricted-syntax -- gone meanwhile, or not ours to inspect: not part of the server
    } catch {}
  }
  return pids;
}

/**
 * Whether a process may still hold what it had open (a listening port, shared memory). A zombie whose threads have
 * all exited has released everything, and counts as gone even if nobody reaps it; but the main thread of a
 * multi-threaded process (the Erlang VM) shows as a zombie while its other threads are still tearing down, and
 * until the last one has, the process keeps its files: its port still accepts connections.
 */
function stillHolding(entry: ProcEntry): boolean {
  if (entry.state !== "Z") return true;
  try {
    return readdirSync(`/proc/${entry.pid}/task`).some((task) => {
      const stat = readFileSync(`/proc/${entry.pid}/task/${task}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
    });
  } catch {
    // Gone meanwhile: it holds nothing.
    return false;
  }
}

/** Sends SIGKILL to each process (those already gone are skipped) and waits until none runs any more. */
export async function killAndWait(pids: number[], timeoutMs = 10_000): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
      // eslint-disable-next-line no-restricted-syntax -- ESRCH: it has exited already, which is what is wanted
    } catch {}
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = procEntries().filter((entry) => pids.includes(entry.pid) && stillHolding(entry));
    if (alive.length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes ${alive.map((entry) => entry.pid).join(", ")} outlived SIGKILL by ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
