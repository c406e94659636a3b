import { execFileSync } from "node:child_process";

/** Runs a Python 3 script — a reader independent of the code under test — and parses the JSON it prints. */
export function runPython<T>(script: string, args: string[] = [], input?: Buffer): T {
  return JSON.parse(execFileSync("python3", ["-c", script, ...args], { input, encoding: "utf8" })) as T;
}
