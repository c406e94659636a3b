/** Process figures from /proc (Linux): CPU time, peak memory, children, and the CPU the whole machine spent. */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";

/** USER_HZ: /proc reports CPU times in clock ticks of 1/100 s. */
const TICKS_PER_SECOND = 100;

/** Fields after the command name in /proc/<pid>/stat (the name may contain spaces and parentheses). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** CPU seconds of a process itself, and of its children that have ended and were waited for (ffmpeg, pocketsphinx). */
export function cpuSeconds(pid: number): { own: number; endedChildren: number } {
  const fields = statFields(pid);
  // fields[11..14] = utime, stime, cutime, cstime (fields 14-17 of proc(5))
  return {
    own: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    endedChildren: (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND,
  };
}

/** The most memory (resident set, MiB) the process has held since it started or since resetPeakRss. */
export function peakRssMiB(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]) / 1024;
}

/** Starts a new peak-memory window ("5" to clear_refs resets VmHWM to the current resident set). */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** The running children of a process, with their command names (spawned from its main thread, as libuv does). */
export function childrenOf(pid: number): { pid: number; command: string }[] {
  let list: string;
  try {
    list = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    return [];
  }
  return list
    .split(" ")
    .filter(Boolean)
    .flatMap((child) => {
      try {
        return [{ pid: Number(child), command: readFileSync(`/proc/${child}/comm`, "utf8").trim() }];
      } catch {
        return []; // ended meanwhile
      }
    });
}

/** Every process descending from `root` (not `root` itself). */
export function descendantsOf(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parentOf.set(Number(entry), Number(statFields(Number(entry))[1]));
      // eslint-disable-next-line no-restricted-syntax -- the process ended meanwhile: it has no descendants to count
    } catch {}
  }
  const ours = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of parentOf) {
      if (!ours.has(pid) && ours.has(parent)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  ours.delete(root);
  return [...ours];
}

/** CPU seconds the whole machine spent busy, all cores (/proc/stat: user, nice, system, irq, softirq, steal). */
export function machineBusySeconds(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + (steal ?? 0)) / TICKS_PER_SECOND;
}

/**
 * CPU seconds used so far by this process and everything it started (including children that ended: a
 * parent's cutime/cstime hold them), so that the machine's busy time minus this is what others used.
 */
export function ourCpuSeconds(): number {
  let total = 0;
  for (const pid of [process.pid, ...descendantsOf(process.pid)]) {
    try {
      const cpu = cpuSeconds(pid);
      total += cpu.own + cpu.endedChildren;
      // eslint-disable-next-line no-restricted-syntax -- ended meanwhile: its parent's cutime holds it from now on
    } catch {}
  }
  return total;
}
