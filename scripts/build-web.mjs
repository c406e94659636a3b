#!/usr/bin/env node
/**
 * `npm run build:web` (the last step of `npm run build`): type-checks the web app and builds it with Vite into
 * clients/web/dist, which the gateway serves at /app/. Skipped when nothing it is made from changed since the last
 * build (a hash kept in node_modules/.cache/study-generate/), so `npm start` stays quick; `--force` builds anyway.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const web = join(root, "clients/web");
const stamp = join(root, "node_modules/.cache/study-generate/web.sha256");

function filesUnder(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

const inputs = [
  ...["src", "public", "index.html", "vite.config.ts", "tsconfig.json", "package.json"].flatMap((name) => filesUnder(join(web, name))),
  ...filesUnder(join(root, "clients/sdk/src")),
  join(root, "package-lock.json"),
].filter((file) => !/\.test\.tsx?$/.test(file));
const hash = createHash("sha256");
for (const file of inputs.sort()) hash.update(`\n${relative(root, file)}\n`).update(readFileSync(file));
const digest = hash.digest("hex");

if (!process.argv.includes("--force") && existsSync(join(web, "dist/index.html")) && existsSync(stamp) && readFileSync(stamp, "utf8") === digest) {
  process.stdout.write("build:web: up to date\n");
} else {
  const bin = (name) => join(root, "node_modules/.bin", name);
  execFileSync(bin("tsc"), ["-p", "tsconfig.json"], { cwd: web, stdio: "inherit" });
  execFileSync(bin("vite"), ["build", "--logLevel", "warn"], { cwd: web, stdio: "inherit" });
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, digest);
  process.stdout.write("build:web: built clients/web/dist\n");
}
