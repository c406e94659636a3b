/**
 * The deployment generator (`npm run deploy:generate`): from the service catalogue and the deployment description
 * (./description.ts) it writes the apps' parts of docker-compose.yml (the regions between `# BEGIN GENERATED <name>`
 * and `# END GENERATED <name>`), every file of k8s/base/<app>/,
 * the apps' part of k8s/base/kustomization.yaml and the apps selected by each k8s/base/network/egress-<way>.yaml. The
 * rest (PostgreSQL, RabbitMQ and the other infrastructure in compose, the network policies' rules, the overlays) is
 * written by hand. libs/testkit/test/unit/deployment-generated.test.ts fails when the committed files differ.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Catalogue } from "@study/platform/catalogue";
import { composeAnchors, composeDatabases, composeServices, composeVolumes } from "./compose";
import { DEPLOYMENT, type DeploymentDescription, type EgressWay } from "./description";
import { GENERATED_HEADER, k8sAppFiles } from "./k8s";
import { planApps, type PlannedApp } from "./plan";

export { DEPLOYMENT, GATEWAY_DEPLOYMENT } from "./description";
export type { AppDeployment, DeploymentDescription, EgressWay, ServiceCall, WorkerDeployment } from "./description";

export const GENERATE_COMMAND = "npm run deploy:generate";

const COMPOSE_FILE = "docker-compose.yml";
const K8S_BASE = path.join("k8s", "base");
const KUSTOMIZATION = path.join(K8S_BASE, "kustomization.yaml");
const NETWORK = path.join(K8S_BASE, "network");

/**
 * Replaces the lines between `# BEGIN GENERATED <region>` and `# END GENERATED <region>` (both kept) with `lines`.
 * The markers are what tells a reader which part of a hand-written file is generated.
 */
export function replaceRegion(text: string, file: string, region: string, lines: readonly string[]): string {
  const all = text.split("\n");
  const begin = all.findIndex((line) => line.trim().startsWith(`# BEGIN GENERATED ${region}`));
  const end = all.findIndex((line, at) => at > begin && line.trim() === `# END GENERATED ${region}`);
  if (begin < 0 || end < 0) throw new Error(`${file}: no "# BEGIN GENERATED ${region}" … "# END GENERATED ${region}" lines to write between`);
  return [...all.slice(0, begin + 1), ...lines, ...all.slice(end)].join("\n");
}

/**
 * Every generated file's content, by path relative to `root`, for the given catalogue: docker-compose.yml and
 * k8s/base/kustomization.yaml as they read with their regions rewritten, and every file of the apps' k8s folders.
 */
export function renderDeployment(catalogue: Catalogue, root: string, description: DeploymentDescription = DEPLOYMENT): Map<string, string> {
  const apps = planApps(catalogue, description);
  const files = new Map<string, string>();

  let compose = readFileSync(path.join(root, COMPOSE_FILE), "utf8");
  compose = replaceRegion(compose, COMPOSE_FILE, "anchors", composeAnchors(apps));
  compose = replaceRegion(compose, COMPOSE_FILE, "databases", composeDatabases(apps));
  compose = replaceRegion(compose, COMPOSE_FILE, "services", composeServices(apps));
  compose = replaceRegion(compose, COMPOSE_FILE, "volumes", composeVolumes(apps));
  files.set(COMPOSE_FILE, compose);

  const k8s = k8sAppFiles(apps);
  const kustomization = readFileSync(path.join(root, KUSTOMIZATION), "utf8");
  files.set(
    KUSTOMIZATION,
    replaceRegion(
      kustomization,
      KUSTOMIZATION,
      "apps",
      [...k8s.keys()].map((file) => `  - ${file}`),
    ),
  );
  for (const [file, text] of k8s) files.set(path.join(K8S_BASE, file), text);
  for (const [file, text] of egressPolicies(root, apps)) files.set(file, text);
  return files;
}

/**
 * The apps' lists of the hand-written NetworkPolicies k8s/base/network/egress-<way>.yaml (their generated region):
 * the apps and workers whose description names the way.
 */
function egressPolicies(root: string, apps: readonly PlannedApp[]): Map<string, string> {
  const processes = apps.flatMap((app) => [
    { name: app.name, egress: app.deployment.egress ?? [] },
    ...app.workers.map((worker) => ({ name: worker.name, egress: worker.deployment.egress ?? [] })),
  ]);
  const files = new Map<string, string>();
  const ways = new Set(processes.flatMap((process) => process.egress));
  for (const name of readdirSync(path.join(root, NETWORK)).sort()) {
    const file = path.join(NETWORK, name);
    const text = readFileSync(path.join(root, file), "utf8");
    const way = /^egress-(.+)\.yaml$/.exec(name)?.[1];
    if (!way || !text.includes("# BEGIN GENERATED apps")) continue;
    const selected = processes.filter((process) => process.egress.some((wanted) => wanted === way)).map((process) => process.name);
    if (selected.length === 0) throw new Error(`${file}: no app of the deployment description needs it (egress: ["${way}"])`);
    files.set(
      file,
      replaceRegion(
        text,
        file,
        "apps",
        selected.map((process) => `          - ${process}`),
      ),
    );
    ways.delete(way as EgressWay);
  }
  if (ways.size > 0) throw new Error(`deployment description: no ${NETWORK}/egress-<way>.yaml with generated apps for ${[...ways].join(", ")}`);
  return files;
}

/** Generated files under k8s/base that the catalogue no longer makes (a service or worker removed). */
function leftOverFiles(root: string, rendered: Map<string, string>): string[] {
  const base = path.join(root, K8S_BASE);
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) => readdirSync(path.join(base, dir.name)).map((file) => path.join(K8S_BASE, dir.name, file)))
    .filter((file) => !rendered.has(file) && readFileSync(path.join(root, file), "utf8").startsWith(GENERATED_HEADER));
}

/** The generated files that differ from what `root` holds (missing ones too, and left-over generated ones). */
export function staleDeploymentFiles(catalogue: Catalogue, root: string, description: DeploymentDescription = DEPLOYMENT): string[] {
  const rendered = renderDeployment(catalogue, root, description);
  const differing = [...rendered]
    .filter(([file, text]) => !existsSync(path.join(root, file)) || readFileSync(path.join(root, file), "utf8") !== text)
    .map(([file]) => file);
  return [...differing, ...leftOverFiles(root, rendered)].sort();
}

/** Writes every generated file under `root` and removes left-over generated ones; returns the files it changed. */
export function writeDeployment(catalogue: Catalogue, root: string, description: DeploymentDescription = DEPLOYMENT): string[] {
  const rendered = renderDeployment(catalogue, root, description);
  const changed: string[] = [];
  for (const [file, text] of rendered) {
    const target = path.join(root, file);
    if (existsSync(target) && readFileSync(target, "utf8") === text) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
    changed.push(file);
  }
  for (const file of leftOverFiles(root, rendered)) {
    rmSync(path.join(root, file));
    changed.push(file);
    const dir = path.dirname(path.join(root, file));
    if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
  }
  return changed;
}
