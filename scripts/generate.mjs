#!/usr/bin/env node
/**
 * `npm run generate`: the gRPC contracts (buf + ts-proto, from proto/), each service's Prisma client and the SDK's
 * types (openapi-typescript, from clients/sdk/openapi.json), each made
 * again only when what it is made from changed (a hash of its inputs and the generator's version, kept in
 * node_modules/.cache/study-generate/) or its output is missing. `npm start` builds first: a restart with nothing
 * changed no longer spends half a minute generating what it already has. `--force` makes everything.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
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

/** Runs `make` unless the stamp says the inputs are those of the last run and the output is there. */
function generate(name, { inputs, versions, output, make }) {
  const stamp = join(stamps, `${name}.sha256`);
  const hash = hashOf(inputs, versions);
  if (!force && existsSync(output) && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return false;
  make();
  mkdirSync(stamps, { recursive: true });
  writeFileSync(stamp, hash);
  return true;
}

const run = (command, args, cwd = root, env = {}) =>
  execFileSync(command, args, { cwd, stdio: "inherit", env: { ...process.env, CHECKPOINT_DISABLE: "1", ...env } });

const made = [];
if (
  generate("contracts", {
    inputs: filesUnder(join(root, "proto")),
    versions: [versionOf("@bufbuild/buf"), versionOf("ts-proto")],
    output: join(root, "libs/contracts/src/gen"),
    make: () => run(join(root, "node_modules/.bin/buf"), ["generate", "proto", "--template", "proto/buf.gen.yaml"]),
  })
) {
  made.push("contracts");
}

for (const parent of ["services", "."]) {
  for (const name of parent === "." ? ["gateway"] : readdirSync(join(root, parent))) {
    const workspace = join(root, parent, name);
    const schema = join(workspace, "prisma", "schema.prisma");
    if (!existsSync(schema) || !statSync(schema).isFile()) continue;
    const config = join(workspace, "prisma.config.ts");
    const changed = generate(`prisma-${name}`, {
      inputs: [schema, ...(existsSync(config) ? [config] : [])],
      versions: [versionOf("prisma"), versionOf("@prisma/client")],
      output: join(workspace, "src", "generated", "prisma"),
      make: () =>
        run(join(root, "node_modules/.bin/prisma"), ["generate"], workspace, {
          DATABASE_URL: process.env.DATABASE_URL ?? "postgresql://localhost/unused",
        }),
    });
    if (changed) made.push(name);
  }
}
// The SDK's types, from the committed OpenAPI document (`npm run openapi` writes it from the gateway's routes).
if (
  generate("sdk", {
    inputs: [join(root, "clients/sdk/openapi.json")],
    versions: [versionOf("openapi-typescript")],
    output: join(root, "clients/sdk/src/generated/api.ts"),
    make: () =>
      run(
        join(root, "node_modules/.bin/openapi-typescript"),
        ["openapi.json", "--output", "src/generated/api.ts", "--silent"],
        join(root, "clients/sdk"),
      ),
  })
) {
  made.push("sdk");
}

process.stdout.write(`generate: ${made.length ? `made ${made.join(", ")}` : "everything up to date"}\n`);
