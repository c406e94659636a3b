/**
 * The house rules of eslint.config.mjs bite: each fixture under fixtures/lint/ marks the lines that must be
 * reported (`// ✗ <rules>` at the end of the line, or `// ✗ next line: <rules>` above it), and every other
 * line must pass. The fixtures are linted with type information, as production code is (they have their own
 * tsconfig.json), and with --no-ignore (the repo's own lint run skips them).
 *
 * ESLint loads its flat config (an ES module) with a dynamic import, which jest's CommonJS module system
 * cannot run, so the test runs the CLI in a child process with `--format json`.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const REPO_ROOT = resolve(__dirname, "..", "..", "..");
const CLI = join(REPO_ROOT, "node_modules", "eslint", "bin", "eslint.js");
const FIXTURES = join(__dirname, "fixtures", "lint");

interface LintResult {
  filePath: string;
  messages: Array<{ line: number; ruleId: string | null; message: string }>;
}

function eslint(files: string[]): Promise<LintResult[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, "--no-ignore", "--format", "json", ...files], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    // eslint exits with 1 when it reports problems, which is what the fixtures are for.
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      try {
        resolvePromise(JSON.parse(stdout) as LintResult[]);
      } catch {
        reject(new Error(`eslint (exit ${code}) printed no JSON:\n${Buffer.concat(err).toString("utf8")}\n${stdout.slice(0, 2000)}`));
      }
    });
  });
}

/** `line:rule` for every report the fixture's markers ask for. */
function expectedReports(source: string): string[] {
  const expected: string[] = [];
  source.split("\n").forEach((text, index) => {
    const next = /^\s*\/\/ ✗ next line: (.+)$/.exec(text);
    const same = /^\s*[^/\s].*\/\/ ✗ (?!next line:)(.+)$/.exec(text); // after code on the line
    const [line, rules] = next ? [index + 2, next[1]] : same ? [index + 1, same[1]] : [0, ""];
    for (const rule of rules
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean))
      expected.push(`${line}:${rule}`);
  });
  return expected.sort();
}

describe("lint rules (eslint.config.mjs)", () => {
  const fixtures = readdirSync(FIXTURES).filter((name) => name.endsWith(".ts"));
  let results: Map<string, LintResult>;

  beforeAll(async () => {
    const linted = await eslint(fixtures.map((name) => join(FIXTURES, name)));
    results = new Map(linted.map((result) => [result.filePath.split("/").pop() ?? "", result]));
  }, 120_000);

  it("has fixtures for the house rules", () => {
    expect(fixtures.sort()).toEqual(["double-assertion.ts", "non-null-proto.ts", "swallowed-errors.ts"]);
  });

  it.each([
    ["double-assertion.ts", "no `as unknown as`"],
    ["non-null-proto.ts", "no non-null `!` on a proto reply's optional field (required() instead)"],
    ["swallowed-errors.ts", "no empty catch or `.catch(() => undefined)` without a log line or a disable that says why"],
  ])("%s: %s — reported exactly on the marked lines", (fixture) => {
    const result = results.get(fixture);
    expect(result).toBeDefined();
    const reported = (result?.messages ?? []).map((message) => `${message.line}:${message.ruleId ?? `fatal: ${message.message}`}`).sort();
    const expected = expectedReports(readFileSync(join(FIXTURES, fixture), "utf8"));
    expect(expected.length).toBeGreaterThan(0);
    expect(reported).toEqual(expected);
  });
});
