/**
 * `npm run new:service <name> [--entity <singular>] [--root <folder>]`: a new service copied from the exemplar, its
 * catalogue entry, its root tsconfig reference, its proto and contracts export (../new-service.ts); then the
 * deployment files when the repository generates them, and the steps left to do.
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
  process.stderr.write("usage: npm run new:service <name> [-- --entity <singular>] [--root <folder>]\n");
  process.exit(2);
}
const root = resolve(values.root ?? join(__dirname, "..", "..", "..", ".."));

/** Runs `npm run deploy:generate` when the repository has it (compose and k8s written from the catalogue). */
function generateDeployment(): boolean {
  const manifest = join(root, "package.json");
  const scripts = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> }).scripts : undefined;
  if (!scripts?.["deploy:generate"]) return false;
  const result = spawnSync("npm", ["run", "deploy:generate"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm run deploy:generate failed (exit ${result.status}): run it again once the cause is fixed`);
  return true;
}

try {
  const service = scaffoldService({ name: positionals[0], entity: values.entity, root });
  process.stdout.write(`new:service: ${service.name} (entity ${service.entity}, gRPC port ${service.grpcPort}) written:\n`);
  for (const file of service.files) process.stdout.write(`  ${file}\n`);
  const steps = nextSteps(service, generateDeployment());
  process.stdout.write(`\nWhat is left:\n${steps.map((step, index) => `  ${index + 1}. ${step}\n`).join("")}`);
} catch (error) {
  process.stderr.write(`new:service: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
