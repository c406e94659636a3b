/**
 * Summarises a V8 .cpuprofile (written by `node --cpu-prof`): where the process spent its CPU time, by function
 * (self time) and by package (self time, and time with the package anywhere on the stack).
 *
 *   node bench/dist/profile.js <file.cpuprofile> [top]
 */
import { readFileSync } from "node:fs";
import { required } from "@study/platform/errors";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Row {
  name: string;
  where: string;
  ms: number;
  /** Share of the busy time (all samples but idle). */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  /** The part of the profile summarised (µs on the monotonic clock of process.hrtime), when given and inside it. */
  window?: { fromUs: number; toUs: number };
  totalMs: number;
  busyMs: number;
  idleMs: number;
  gcMs: number;
  /** Self time by function. */
  topSelf: Row[];
  /** Self time by package (node_modules package, node core, @study lib, gateway's own code). */
  selfByPackage: Row[];
  /** Time with the package anywhere on the stack (a request's time inside better-auth, OpenTelemetry, …). */
  inclusiveByPackage: Row[];
  /** Time with the function anywhere on the stack, for functions outside node core. */
  topInclusive: Row[];
  /** Every busy sample assigned to one concern (see CONCERNS), so the shares add up to 100 %. */
  byConcern: Row[];
}

/**
 * What a sample is spent on, decided in this order: the leaf frame for OpenTelemetry and GC (OpenTelemetry wraps
 * every callback, so only its own frames count), else the first concern with a package on the (synchronous)
 * stack. A reply read from a socket starts a new stack: PostgreSQL replies land in "PostgreSQL client", gRPC
 * replies in "gRPC client".
 */
const CONCERNS: Array<{ name: string; leaf?: boolean; matches: (pkg: string, frame: CallFrame) => boolean }> = [
  { name: "OpenTelemetry instrumentation (own frames)", leaf: true, matches: (pkg) => pkg.startsWith("@opentelemetry/") },
  { name: "garbage collector", leaf: true, matches: (pkg) => pkg === "(garbage collector)" },
  {
    name: "session lookup: better-auth (better-call, kysely, its SQL writes, HMAC)",
    matches: (pkg) => pkg === "better-auth" || pkg.startsWith("@better-auth/") || pkg === "better-call" || pkg === "kysely",
  },
  {
    name: "gRPC client (grpc-js, @study/grpc, protobuf)",
    matches: (pkg) => pkg === "@grpc/grpc-js" || pkg === "@study/grpc" || pkg === "@study/contracts" || pkg === "@bufbuild/protobuf",
  },
  { name: "PostgreSQL client (pg: reading replies, pool)", matches: (pkg) => pkg.startsWith("pg") || pkg === "@study/db" },
  { name: "response: express res.json / res.send (JSON.stringify, write)", matches: (_pkg, frame) => frame.url.endsWith("express/lib/response.js") },
  {
    name: "express, router and middleware (helmet, cors, body parser, rate limit), gateway code, zod",
    matches: (pkg) =>
      [
        "express",
        "router",
        "helmet",
        "cors",
        "body-parser",
        "raw-body",
        "express-rate-limit",
        "zod",
        "cookie",
        "finalhandler",
        "send",
        "qs",
      ].includes(pkg) ||
      pkg === "gateway (own code)" ||
      pkg === "@study/platform",
  },
  { name: "pino (logging)", matches: (pkg) => pkg.startsWith("pino") || pkg === "sonic-boom" },
  { name: "node core: HTTP server, parser, sockets, timers (rest)", matches: (pkg) => pkg === "node core" || pkg === "(native / V8)" },
];

const SPECIAL = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"]);

/** The package a script belongs to: `better-auth`, `@opentelemetry/sdk-trace-base`, `node core`, `@study/grpc`, `gateway`. */
export function packageOf(url: string, functionName = ""): string {
  if (!url) return SPECIAL.has(functionName) ? functionName : "(native / V8)";
  if (url.startsWith("node:")) return "node core";
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) {
    const parts = url.slice(modules + "/node_modules/".length).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const lib = /\/libs\/([^/]+)\//.exec(url);
  if (lib) return `@study/${lib[1]}`;
  if (/\/gateway\/(dist|src)\//.test(url)) return "gateway (own code)";
  const service = /\/services\/([^/]+)\//.exec(url);
  if (service) return `services/${service[1]} (own code)`;
  return "other";
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf("/node_modules/");
  if (modules >= 0) return url.slice(modules + "/node_modules/".length);
  return url.replace(/^file:\/\//, "").replace(/^.*?\/(gateway|libs|services)\//, "$1/");
}

function rows(map: Map<string, { where: string; ms: number }>, busyMs: number, top: number): Row[] {
  return [...map.entries()]
    .map(([name, { where, ms }]) => ({ name, where, ms: Math.round(ms * 10) / 10, percent: Math.round((ms / busyMs) * 1000) / 10 }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

/**
 * `window` (µs, the clock of process.hrtime, which V8's profiler timestamps use too on Linux) keeps only the
 * samples taken then, e.g. the load phase without the process's start-up; ignored when outside the profile.
 */
export function summariseProfile(file: string, top = 20, window?: { fromUs: number; toUs: number }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const inside = window && window.fromUs >= profile.startTime && window.toUs <= profile.endTime ? window : undefined;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) byId.set(node.id, node);
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // timeDeltas[i] is the time between sample i-1 and sample i: charge it to sample i-1's node.
  const weight = (i: number) => (i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0) / 1000;

  const functionKey = (frame: CallFrame) => `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
  const self = new Map<string, { where: string; ms: number }>();
  const selfPackage = new Map<string, { where: string; ms: number }>();
  const inclusivePackage = new Map<string, { where: string; ms: number }>();
  const inclusiveFunction = new Map<string, { where: string; ms: number }>();
  const concern = new Map<string, { where: string; ms: number }>();
  let totalMs = 0;
  let idleMs = 0;
  let gcMs = 0;
  const add = (map: Map<string, { where: string; ms: number }>, key: string, where: string, ms: number) => {
    const entry = map.get(key) ?? { where, ms: 0 };
    entry.ms += ms;
    map.set(key, entry);
  };

  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (inside && (at < inside.fromUs || at > inside.toUs)) continue;
    const ms = weight(i);
    totalMs += ms;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    const frame = node.callFrame;
    if (frame.functionName === "(idle)") {
      idleMs += ms;
      continue;
    }
    if (frame.functionName === "(garbage collector)") gcMs += ms;
    const pkg = packageOf(frame.url, frame.functionName);
    add(self, functionKey(frame), pkg, ms);
    add(selfPackage, pkg, "", ms);

    const packagesOnStack = new Set<string>();
    const functionsOnStack = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const current = required(byId.get(id), `profile node ${id}`);
      const f = current.callFrame;
      if (SPECIAL.has(f.functionName)) continue;
      const p = packageOf(f.url, f.functionName);
      packagesOnStack.add(p);
      if (p !== "node core" && p !== "(native / V8)" && f.url) functionsOnStack.add(`${functionKey(f)}\u0000${p}`);
    }
    for (const p of packagesOnStack) add(inclusivePackage, p, "", ms);

    const stack: Array<{ pkg: string; frame: CallFrame }> = [];
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const f = required(byId.get(id), `profile node ${id}`).callFrame;
      if (f.functionName !== "(root)") stack.push({ pkg: packageOf(f.url, f.functionName), frame: f });
    }
    const chosen =
      CONCERNS.find((c) => c.leaf && c.matches(pkg, frame)) ??
      CONCERNS.find((c) => !c.leaf && stack.some((entry) => c.matches(entry.pkg, entry.frame)));
    add(concern, chosen?.name ?? "other ((program), native)", "", ms);
    for (const key of functionsOnStack) {
      const [name, p] = key.split("\u0000");
      add(inclusiveFunction, name, p, ms);
    }
  }
  const busyMs = totalMs - idleMs;
  return {
    file,
    window: inside,
    totalMs: Math.round(totalMs),
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idleMs),
    gcMs: Math.round(gcMs),
    topSelf: rows(self, busyMs, top),
    selfByPackage: rows(selfPackage, busyMs, top),
    inclusiveByPackage: rows(inclusivePackage, busyMs, top),
    topInclusive: rows(inclusiveFunction, busyMs, top),
    byConcern: rows(concern, busyMs, CONCERNS.length + 1),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const table = (title: string, list: Row[], withWhere: boolean) =>
    [
      `#### ${title}`,
      "",
      withWhere ? "| function | package | ms | % of busy |" : "| package | ms | % of busy |",
      withWhere ? "|---|---|---:|---:|" : "|---|---:|---:|",
      ...list.map((row) =>
        withWhere ? `| \`${row.name}\` | ${row.where} | ${row.ms} | ${row.percent} |` : `| ${row.name} | ${row.ms} | ${row.percent} |`,
      ),
      "",
    ].join("\n");
  return [
    `Profile \`${summary.file}\`${summary.window ? ` (load phase only: ${((summary.window.toUs - summary.window.fromUs) / 1e6).toFixed(1)} s)` : " (whole process life)"}: ${summary.totalMs} ms sampled, ${summary.busyMs} ms busy (${summary.idleMs} ms idle), ` +
      `${summary.gcMs} ms in the garbage collector.`,
    "",
    table("Busy time by concern (each sample counted once)", summary.byConcern, false).replace("| package |", "| concern |"),
    table("Self time by package", summary.selfByPackage, false),
    table("Time with the package on the stack (inclusive)", summary.inclusiveByPackage, false),
    table("Top functions by self time", summary.topSelf, true),
    table("Top functions by inclusive time (outside node core)", summary.topInclusive, true),
  ].join("\n");
}

if (require.main === module) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write("usage: node bench/dist/profile.js <file.cpuprofile> [top]\n");
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(summariseProfile(file, Number(top ?? 20)))}\n`);
}
