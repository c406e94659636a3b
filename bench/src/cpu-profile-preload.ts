/**
 * Preloaded into the gateway with NODE_OPTIONS=--require (node 20 refuses `--cpu-prof` in NODE_OPTIONS): samples
 * the CPU from start-up through the inspector's Profiler and, when the process exits, writes
 * `<CPU_PROFILE_DIR>/<CPU_PROFILE_NAME, default gateway>.<pid>.cpuprofile` — the format `node --cpu-prof` writes.
 */
import { writeFileSync, mkdirSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  session.post("Profiler.setSamplingInterval", { interval: Number(process.env.CPU_PROFILE_INTERVAL_US ?? 1000) });
  session.post("Profiler.start");
  // The main thread's inspector session answers synchronously, so this works in an 'exit' listener.
  process.on("exit", () => {
    session.post("Profiler.stop", (error, result) => {
      if (error) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${process.env.CPU_PROFILE_NAME ?? "gateway"}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
