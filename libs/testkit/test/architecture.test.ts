/**
 * Architecture rules (.dependency-cruiser.cjs at the repo root) hold for libs/, services/ and gateway/, and
 * each rule really reports what it forbids (throw-away fixtures laid out like the repo).
 *
 * dependency-cruiser 17 is ESM-only (its package.json exports only the "import" condition), which jest's
 * CommonJS module system cannot load, so the test runs its CLI in a child process with `--output-type json`.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const REPO_ROOT = resolve(__dirname, "..", "..", "..");
const CLI = join(REPO_ROOT, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const CONFIG = join(REPO_ROOT, ".dependency-cruiser.cjs");

/** The parts of dependency-cruiser's JSON result this test reads. */
interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: Array<{ name: string } | string>;
}
interface CruiseResult {
  modules: Array<{ source: string; matchesDoNotFollow?: boolean; coreModule?: boolean }>;
  summary: { violations: Violation[]; error: number; totalCruised: number; totalDependenciesCruised: number };
}

/** Runs depcruise with the repo's config in `cwd` (rule paths are relative to it). */
function depcruise(cwd: string, targets: string[]): Promise<CruiseResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, "--config", CONFIG, "--output-type", "json", "--no-progress", ...targets], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    // depcruise exits with the number of errors found: the exit code is not a failure of the run itself.
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      try {
        resolvePromise(JSON.parse(stdout) as CruiseResult);
      } catch {
        reject(new Error(`depcruise (exit ${code}) printed no JSON:\n${Buffer.concat(err).toString("utf8")}\n${stdout.slice(0, 2000)}`));
      }
    });
  });
}

const cycleOf = (violation: Violation) => (violation.cycle ?? []).map((step) => (typeof step === "string" ? step : step.name)).join(" → ");

/** One line per violation, e.g. `domain-not-to-infrastructure: services/a/src/domain/x.ts → pg`. */
function line(violation: Violation): string {
  const cycle = violation.cycle?.length ? ` (cycle: ${violation.from} → ${cycleOf(violation)})` : "";
  return `${violation.rule.name}: ${violation.from} → ${violation.to}${cycle}`;
}

/** Source modules actually parsed (not built, generated, package or core modules, which are leaves). */
const sourceModules = (result: CruiseResult) =>
  result.modules.filter((module) => /^(libs|services|gateway|clients)\//.test(module.source) && !module.matchesDoNotFollow && !module.coreModule);

describe("architecture (dependency-cruiser)", () => {
  let repo: CruiseResult;
  let fixture: CruiseResult;
  let fixtureDir: string;

  beforeAll(async () => {
    fixtureDir = await mkdtemp(join(tmpdir(), "architecture-"));
    await writeFixtures(fixtureDir);
    [repo, fixture] = await Promise.all([
      depcruise(REPO_ROOT, ["libs", "services", "gateway", "clients"]),
      depcruise(fixtureDir, ["libs", "services", "gateway", "clients"]),
    ]);
    // About 10 s of one core on a quiet machine (it parses every source file); CI runs two test files at once.
  }, 120_000);

  // KEEP_FIXTURE=1 keeps the fixture folder for a look with `npx depcruise --config <repo>/.dependency-cruiser.cjs libs services gateway`.
  afterAll(async () => {
    if (fixtureDir && !process.env.KEEP_FIXTURE) await rm(fixtureDir, { recursive: true, force: true });
  });

  test("the repository has no violations", () => {
    expect(repo.summary.violations.map(line)).toEqual([]);
  });

  test("the cruise really read the sources (no false green)", () => {
    const sources = sourceModules(repo).map((module) => module.source);
    expect(sources.length).toBeGreaterThan(50);
    // every app and lib is in, with its domain/application/adapters layers …
    for (const expected of [
      "gateway/src/app.ts",
      "services/courses/src/domain/course.ts",
      "services/courses/src/application/list-courses.ts",
      "services/courses/src/adapters/grpc/courses-grpc-service.ts",
      "services/notifications/src/domain/notification.ts",
      "libs/platform/src/errors.ts",
      "libs/testkit/src/stack.ts",
      "clients/web/src/main.tsx",
      "clients/sdk/src/client.ts",
    ]) {
      expect(sources).toContain(expected);
    }
    // … built and generated code only as imported leaves, never parsed as sources
    expect(sources.filter((source) => /\/dist\/|\/src\/generated\/|^libs\/contracts\/src\/gen\//.test(source))).toEqual([]);
    // … and @study/* imports resolved to the workspace libs (so the rules can match them)
    const errors = repo.modules.find((module) => module.source === "libs/platform/dist/errors.js");
    expect(errors?.matchesDoNotFollow).toBe(true);
  });

  // Each rule: the fixture violations it must report (from → to).
  const expectedByRule: Record<string, Array<[string, string]>> = {
    "domain-not-to-application-or-adapters": [
      ["services/alpha/src/domain/x.ts", "services/alpha/src/adapters/y.ts"],
      ["services/alpha/src/domain/x.ts", "services/alpha/src/application/uc.ts"],
      ["services/alpha/src/domain/x.ts", "services/alpha/src/generated/client.ts"],
    ],
    "domain-not-to-infrastructure": [
      ["services/alpha/src/domain/x.ts", "pg"],
      ["services/alpha/src/domain/x.ts", "@prisma/client"],
      ["services/alpha/src/domain/x.ts", "@grpc/grpc-js"],
      ["services/alpha/src/domain/x.ts", "@study/db"],
      ["services/alpha/src/domain/x.ts", "libs/platform/dist/index.js"],
      ["services/alpha/src/domain/x.ts", "fs"],
      ["services/alpha/src/domain/x.ts", "child_process"],
    ],
    "domain-only-platform-errors": [["services/alpha/src/domain/x.ts", "zod"]],
    "application-not-to-adapters": [
      ["services/alpha/src/application/uc.ts", "services/alpha/src/adapters/y.ts"],
      ["services/alpha/src/application/uc.ts", "services/alpha/src/generated/client.ts"],
    ],
    "application-only-pure-imports": [
      ["services/alpha/src/application/uc.ts", "services/alpha/src/adapters/y.ts"],
      ["services/alpha/src/application/infra.ts", "amqplib"],
      ["services/alpha/src/application/infra.ts", "@prisma/client"],
      ["services/alpha/src/application/infra.ts", "@opentelemetry/api"],
      ["services/alpha/src/application/infra.ts", "express"],
      ["services/alpha/src/application/infra.ts", "@study/events"], // the broker part; builders: @study/events/envelope
      ["services/alpha/src/application/infra.ts", "@study/runtime"],
      ["services/alpha/src/application/infra.ts", "@study/db"],
      ["services/alpha/src/application/infra.ts", "@study/contracts"],
      ["services/alpha/src/application/infra.ts", "@study/grpc"],
      ["gateway/src/identity/application/sign-in.ts", "pg"],
      ["gateway/src/identity/application/sign-in.ts", "gateway/src/identity/adapters/sql.ts"],
    ],
    "application-no-io-builtins": [
      ["services/alpha/src/application/infra.ts", "fs"],
      ["services/alpha/src/application/infra.ts", "os"],
      ["gateway/src/identity/application/sign-in.ts", "fs/promises"],
    ],
    "application-platform-pure-entries": [["services/alpha/src/application/infra.ts", "libs/platform/dist/index.js"]],
    "pure-entries-stay-pure": [
      ["libs/platform/src/clock.ts", "pino"],
      ["libs/platform/src/clock.ts", "fs"],
      ["libs/events/src/envelope.ts", "amqplib"],
      ["libs/events/src/envelope.ts", "libs/events/src/publisher.ts"],
      ["libs/events/src/envelope.ts", "libs/platform/dist/index.js"],
      ["libs/grpc/src/ids.ts", "@grpc/grpc-js"],
    ],
    "no-service-to-other-service": [
      ["services/alpha/src/domain/x.ts", "services/beta/src/domain/b.ts"],
      ["services/beta/src/service.ts", "services/alpha/src/z.ts"],
    ],
    "no-service-to-gateway": [["services/alpha/src/service.ts", "gateway/src/a.ts"]],
    "gateway-not-to-services": [["gateway/src/a.ts", "services/alpha/src/z.ts"]],
    "clients-through-the-api": [
      ["clients/web/src/page.tsx", "services/alpha/src/z.ts"],
      ["clients/web/src/page.tsx", "gateway/src/a.ts"],
      ["clients/web/src/page.tsx", "libs/util/src/u.ts"],
    ],
    "libs-not-to-apps": [
      ["libs/util/src/u.ts", "services/alpha/src/z.ts"],
      ["libs/util/src/u.ts", "gateway/src/a.ts"],
    ],
    "src-not-to-test-code": [
      ["libs/util/src/prod.ts", "libs/util/test/helper.ts"],
      ["libs/util/src/prod.ts", "@study/testkit"],
      ["gateway/src/a.ts", "gateway/test/e2e/journey.test.ts"],
    ],
    "no-circular": [["gateway/src/cycle-a.ts", "gateway/src/cycle-b.ts"]], // a cycle is reported once
    "study-packages-resolve": [
      ["services/alpha/src/domain/x.ts", "@study/db"],
      ["libs/util/src/prod.ts", "@study/testkit"],
    ],
    "not-to-unresolvable": [["libs/util/src/broken.ts", "./missing"]],
  };

  test.each(Object.entries(expectedByRule))("rule %s reports its fixture violations", (rule, expected) => {
    const reported = fixture.summary.violations.filter((violation) => violation.rule.name === rule).map((v) => `${v.from} → ${v.to}`);
    for (const [from, to] of expected) expect(reported).toContain(`${from} → ${to}`);
  });

  test("every rule of the config is proven by a fixture", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the config is CommonJS, read as depcruise reads it
    const config = require(CONFIG) as { forbidden: Array<{ name: string }> };
    expect(config.forbidden.map((rule) => rule.name).sort()).toEqual(Object.keys(expectedByRule).sort());
  });

  test("allowed imports are not reported", () => {
    // (the fixture has no node_modules: its @study/* and npm imports stay unresolved on purpose, which only the
    // two resolution rules are about)
    const resolutionRules = ["study-packages-resolve", "not-to-unresolvable"];
    const lines = fixture.summary.violations.filter((v) => !resolutionRules.includes(v.rule.name)).map(line);
    const allowed = [
      "services/alpha/src/domain/x.ts → @study/platform/errors", // the one lib a domain may use
      "services/alpha/src/domain/x.ts → crypto", // a pure node built-in
      "services/alpha/src/domain/x.ts → services/alpha/src/domain/money.ts", // its own domain
      "services/alpha/src/application/uc.ts → services/alpha/src/domain/money.ts", // application → domain
      "services/alpha/src/adapters/y.ts → services/alpha/src/application/uc.ts", // adapter → application
      "libs/testkit/src/k.ts → libs/testkit/test/helper2.ts", // the testkit is exempt from src-not-to-test-code
      "gateway/src/type-a.ts", // a cycle through an `import type` only
      "services/alpha/test/unit/x.test.ts", // tests may use the testkit
      // what a use case may import: its ports, pure lib entry points and npm libraries, types of the platform
      "services/alpha/src/application/pure.ts",
      "gateway/src/identity/application/sign-in.ts → gateway/src/identity/domain/session.ts",
      "gateway/src/identity/application/sign-in.ts → gateway/src/identity/application/ports/sessions.port.ts",
      // what a pure entry point may import
      "libs/events/src/envelope.ts → @study/contracts/events",
      "libs/events/src/envelope.ts → @study/platform/trace-context",
      "libs/events/src/envelope.ts → @opentelemetry/api",
      "libs/events/src/envelope.ts → uuid",
      "libs/grpc/src/ids.ts → uuid",
      "clients/web/src/page.tsx → clients/sdk/src/index.ts", // the web app through the SDK
    ];
    for (const edge of allowed) expect(lines.filter((line) => line.includes(edge))).toEqual([]);
  });
});

/** A miniature repo with one or more violations of every rule, and a few allowed imports. */
async function writeFixtures(root: string): Promise<void> {
  const files: Record<string, string> = {
    "services/alpha/src/domain/x.ts": [
      'import { y } from "../adapters/y";',
      'import { uc } from "../application/uc";',
      'import { client } from "../generated/client";',
      'import { Pool } from "pg";',
      'import { PrismaClient } from "@prisma/client";',
      'import { Metadata } from "@grpc/grpc-js";',
      'import { ensureDatabase } from "@study/db";',
      'import { createLogger } from "@study/platform";',
      'import { readFileSync } from "node:fs";',
      'import { spawn } from "child_process";',
      'import { z } from "zod";',
      'import { b } from "../../../beta/src/domain/b";',
      // allowed:
      'import { AppError } from "@study/platform/errors";',
      'import { randomUUID } from "node:crypto";',
      'import { money } from "./money";',
      "export const x = [y, uc, client, Pool, PrismaClient, Metadata, ensureDatabase, createLogger, readFileSync, spawn, z, b, AppError, randomUUID, money];",
    ].join("\n"),
    "services/alpha/src/domain/money.ts": "export const money = 1;\n",
    "services/alpha/src/application/uc.ts": [
      'import { y } from "../adapters/y";',
      'import { client } from "../generated/client";',
      'import { money } from "../domain/money";',
      "export const uc = [y, client, money];",
    ].join("\n"),
    "services/alpha/src/adapters/y.ts": 'import type { uc } from "../application/uc";\nexport const y: typeof uc | number = 1;\n',
    // a use case importing infrastructure …
    "services/alpha/src/application/infra.ts": [
      'import amqp from "amqplib";',
      'import { PrismaClient } from "@prisma/client";',
      'import { trace } from "@opentelemetry/api";',
      'import express from "express";',
      'import { EventPublisher } from "@study/events";',
      'import { startProcess } from "@study/runtime";',
      'import { ensureDatabase } from "@study/db";',
      'import { courses } from "@study/contracts";',
      'import { unary } from "@study/grpc";',
      'import { readFile } from "node:fs";',
      'import { tmpdir } from "os";',
      'import { createLogger } from "@study/platform";',
      "export const infra = [amqp, PrismaClient, trace, express, EventPublisher, startProcess, ensureDatabase, courses, unary, readFile, tmpdir, createLogger];",
    ].join("\n"),
    // … and one importing only what it may
    "services/alpha/src/application/pure.ts": [
      'import { AppError, required } from "@study/platform/errors";',
      'import { systemClock, type Clock } from "@study/platform/clock";',
      'import { isUuid } from "@study/platform/ids";',
      'import { createEvent } from "@study/events/envelope";',
      'import { newId } from "@study/grpc/ids";',
      'import { z } from "zod";',
      'import { FSRS } from "ts-fsrs";',
      'import nlp from "compromise";',
      'import type { Logger } from "@study/platform";',
      'import type { Readable } from "node:stream";',
      'import { randomInt } from "node:crypto";',
      'import type { Port } from "./ports/port";',
      'import { money } from "../domain/money";',
      "export const pure = (clock: Clock, logger: Logger, port: Port, body: Readable) =>",
      "  [AppError, required, systemClock, isUuid, createEvent, newId, z, FSRS, nlp, randomInt, money, clock, logger, port, body];",
    ].join("\n"),
    "services/alpha/src/application/ports/port.ts": "export interface Port { run(): Promise<void> }\n",
    "gateway/src/identity/application/sign-in.ts": [
      'import { Pool } from "pg";',
      'import { readFile } from "node:fs/promises";',
      'import { sql } from "../adapters/sql";',
      'import { session } from "../domain/session";',
      'import type { Sessions } from "./ports/sessions.port";',
      "export const signIn = (sessions: Sessions) => [Pool, readFile, sql, session, sessions];",
    ].join("\n"),
    "gateway/src/identity/application/ports/sessions.port.ts": "export interface Sessions { find(): Promise<string> }\n",
    "gateway/src/identity/adapters/sql.ts": "export const sql = 1;\n",
    "gateway/src/identity/domain/session.ts": "export const session = 1;\n",
    // pure entry points of the libs that load what they must not
    "libs/platform/src/clock.ts": 'import pino from "pino";\nimport { readFileSync } from "node:fs";\nexport const clock = [pino, readFileSync];\n',
    "libs/events/src/envelope.ts": [
      'import amqp from "amqplib";',
      'import { EventPublisher } from "./publisher";',
      'import { createLogger } from "@study/platform";',
      // allowed:
      'import * as events from "@study/contracts/events";',
      'import { currentTraceHeaders } from "@study/platform/trace-context";',
      'import { context } from "@opentelemetry/api";',
      'import { v7 } from "uuid";',
      "export const envelope = [amqp, EventPublisher, createLogger, events, currentTraceHeaders, context, v7];",
    ].join("\n"),
    "libs/events/src/publisher.ts": "export const EventPublisher = 1;\n",
    "libs/platform/package.json": '{ "name": "@study/platform", "main": "dist/index.js" }\n',
    "libs/platform/dist/index.js": "exports.createLogger = () => undefined;\n",
    "libs/grpc/src/ids.ts": 'import { Metadata } from "@grpc/grpc-js";\nimport { v7 } from "uuid";\nexport const newId = () => [Metadata, v7];\n',
    "services/alpha/src/generated/client.ts": "export const client = 1;\n",
    "services/alpha/src/z.ts": "export const z = 1;\n",
    "services/alpha/src/service.ts": 'import { a } from "../../../gateway/src/a";\nexport const service = a;\n',
    "services/alpha/test/unit/x.test.ts":
      'import { startTestStack } from "@study/testkit";\nimport { x } from "../../src/domain/x";\nexport const t = [startTestStack, x];\n',
    "services/beta/src/domain/b.ts": "export const b = 1;\n",
    "services/beta/src/service.ts": 'import { z } from "../../alpha/src/z";\nexport const service = z;\n',
    "gateway/src/a.ts":
      'import { z } from "../../services/alpha/src/z";\nimport { journey } from "../test/e2e/journey.test";\nexport const a = [z, journey];\n',
    "gateway/test/e2e/journey.test.ts": "export const journey = 1;\n",
    "gateway/src/cycle-a.ts": 'import { b } from "./cycle-b";\nexport const a = () => b;\n',
    "gateway/src/cycle-b.ts": 'import { a } from "./cycle-a";\nexport const b = () => a;\n',
    "gateway/src/type-a.ts": 'import type { B } from "./type-b";\nexport interface A { b?: B }\nexport const makeA = (): A => ({});\n',
    "gateway/src/type-b.ts": 'import { makeA } from "./type-a";\nexport interface B { a: ReturnType<typeof makeA> }\n',
    "libs/util/src/u.ts":
      'import { z } from "../../../services/alpha/src/z";\nimport { a } from "../../../gateway/src/a";\nexport const u = [z, a];\n',
    "libs/util/src/prod.ts":
      'import { helper } from "../test/helper";\nimport { startStack } from "@study/testkit";\nexport const prod = [helper, startStack];\n',
    "libs/util/src/broken.ts": 'import { missing } from "./missing";\nexport const broken = missing;\n',
    // The web app may import the SDK (its own workspace) and npm packages, not the backend.
    "clients/web/src/page.tsx":
      'import { z } from "../../../services/alpha/src/z";\nimport { a } from "../../../gateway/src/a";\nimport { u } from "../../../libs/util/src/u";\nimport { sdk } from "../../sdk/src/index";\nexport const page = [z, a, u, sdk];\n',
    "clients/sdk/src/index.ts": "export const sdk = 1;\n",
    "libs/util/test/helper.ts": "export const helper = 1;\n",
    "libs/testkit/src/k.ts": 'import { helper2 } from "../test/helper2";\nexport const k = helper2;\n',
    "libs/testkit/test/helper2.ts": "export const helper2 = 1;\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  // @study/platform linked the way npm workspaces link it, so that its imports resolve as in the repo: an
  // unresolved import has no dependency type but "unknown", which would hide the type-only exception for its index.
  await mkdir(join(root, "node_modules", "@study"), { recursive: true });
  await symlink(join(root, "libs", "platform"), join(root, "node_modules", "@study", "platform"), "dir");
}
