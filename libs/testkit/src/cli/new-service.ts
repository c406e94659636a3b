/**
 * `npm run new:service <name> [--entity <singular>] [--root <folder>]`: a new service copied from the exemplar, its
 * catalogue entry, its root tsconfig reference, its proto and contracts export (../new-service.ts); then its generated
 * code and the deployment files, and the steps left to do.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { nextSteps, scaffoldService } from "../new-service";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { entity: { type: "string" }, root: { type: "string" } },
});
if (positionals.length !== 1) {
  process.stderr.write("usage: npm run new:service <name> [-- [--entity <singular>] [--root <folder>]]\n");
  process.exit(2);
}
const root = resolve(values.root ?? join(__dirname, "..", "..", "..", ".."));

/**
 * Runs a script of the repository's package.json, when it has it: `generate` (the new proto's contracts and Prisma
 * client, which the build needs from now on), then `deploy:generate` (compose and k8s from the catalogue).
 */
function runScript(script: string): boolean {
  const manifest = join(root, "package.json");
  const scripts = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> }).scripts : undefined;
  if (!scripts?.[script]) return false;
  const result = spawnSync("npm", ["run", script], { cwd: root, stdio: "inherit" });
  if (result.status !== 0)
    throw new Error(`the service is written, but npm run ${script} failed (exit ${result.status}): run it again once the cause is fixed`);
  return true;
}

try {
  const service = scaffoldService({ name: positionals[0], entity: values.entity, root });
  process.stdout.write(`new:service: ${service.name} (entity ${service.entity}, gRPC port ${service.grpcPort}) written:\n`);
  for (const file of service.files) process.stdout.write(`  ${file}\n`);
  const generated = runScript("generate");
  const steps = nextSteps(service, { generated, deploymentGenerated: generated && runScript("deploy:generate") });
  process.stdout.write(`\nWhat is left:\n${steps.map((step, index) => `  ${index + 1}. ${step}\n`).join("")}`);
} catch (error) {
  process.stderr.write(`new:service: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
