#!/usr/bin/env node
/**
 * `npm run generate`: the gRPC contracts (buf + ts-proto, from proto/), each service's Prisma client and the SDK's
 * types (openapi-typescript, from clients/sdk/openapi.json), each made
 * again only when what it is made from changed (a hash of its inputs and the generator's version, kept in
 * node_modules/.cache/study-generate/) or its output is missing. `npm start` builds first: a restart with nothing
 * changed no longer spends half a minute generating what it already has. `--force` makes everything.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const stamps = join(root, "node_modules", ".cache", "study-generate");
const force = process.argv.includes("--force");

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const versionOf = (pkg) => JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")).version;

function hashOf(files, versions) {
  const hash = createHash("sha256").update(versions.join("\n"));
  for (const file of [...files].sort()) hash.update(`\n${relative(root, file)}\n`).update(readFileSync(file));
  return hash.digest("hex");
}

/** Runs a generator; its output is printed in one piece when it ends, so parallel generators do not interleave. */
function run(command, args, cwd = root, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, CHECKPOINT_DISABLE: "1", ...env } });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      process.stdout.write(Buffer.concat(output));
      if (code === 0) resolve();
      else reject(new Error(`${relative(root, command)} ${args.join(" ")} (in ${relative(root, cwd) || "."}) exited with ${code}`));
    });
  });
}

/** What to make: each entry is made again unless the stamp says its inputs are those of the last run and its output is there. */
const jobs = [
  {
    name: "contracts",
    inputs: filesUnder(join(root, "proto")),
    versions: [versionOf("@bufbuild/buf"), versionOf("ts-proto")],
    output: join(root, "libs/contracts/src/gen"),
    make: () => run(join(root, "node_modules/.bin/buf"), ["generate", "proto", "--template", "proto/buf.gen.yaml"]),
  },
];
for (const parent of ["services", "."]) {
  for (const name of parent === "." ? ["gateway"] : readdirSync(join(root, parent))) {
    const workspace = join(root, parent, name);
    const schema = join(workspace, "prisma", "schema.prisma");
    if (!existsSync(schema) || !statSync(schema).isFile()) continue;
    const config = join(workspace, "prisma.config.ts");
    jobs.push({
      name,
      stamp: `prisma-${name}`,
      inputs: [schema, ...(existsSync(config) ? [config] : [])],
      versions: [versionOf("prisma"), versionOf("@prisma/client")],
      output: join(workspace, "src", "generated", "prisma"),
      make: () =>
        run(join(root, "node_modules/.bin/prisma"), ["generate"], workspace, {
          DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://localhost/unused",
        }),
    });
  }
}
// The SDK's types, from the committed OpenAPI document (`npm run openapi` writes it from the gateway's routes).
jobs.push({
  name: "sdk",
  inputs: [join(root, "clients/sdk/openapi.json")],
  versions: [versionOf("openapi-typescript")],
  output: join(root, "clients/sdk/src/generated/api.ts"),
  make: () =>
    run(
      join(root, "node_modules/.bin/openapi-typescript"),
      ["openapi.json", "--output", "src/generated/api.ts", "--silent"],
      join(root, "clients/sdk"),
    ),
});

const stale = jobs.filter((job) => {
  job.hash = hashOf(job.inputs, job.versions);
  const stamp = join(stamps, `${job.stamp ?? job.name}.sha256`);
  return force || !existsSync(job.output) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== job.hash;
});

// The generators are separate processes of a second or two each (ten Prisma clients on a fresh clone): as many
// at once as there are cores.
const pending = [...stale];
async function worker() {
  for (let job = pending.shift(); job; job = pending.shift()) {
    await job.make();
    mkdirSync(stamps, { recursive: true });
    writeFileSync(join(stamps, `${job.stamp ?? job.name}.sha256`), job.hash);
  }
}
try {
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), stale.length) }, worker));
} catch (error) {
  process.stderr.write(`generate: ${error.message}\n`);
  process.exit(1);
}
process.stdout.write(`generate: ${stale.length ? `made ${stale.map((job) => job.name).join(", ")}` : "everything up to date"}\n`);
