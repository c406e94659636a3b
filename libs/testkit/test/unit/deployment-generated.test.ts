import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CATALOGUE, GATEWAY_APP } from "@study/platform/catalogue";
import { DEPLOYMENT, GENERATE_COMMAND, renderDeployment, staleDeploymentFiles, writeDeployment } from "../../src/deployment";
import { REPORTS_PORT, WITH_REPORTS } from "../fixtures/reports-service";

const LAST_SERVICE = CATALOGUE[CATALOGUE.length - 1].name;

const ROOT = resolve(__dirname, "..", "..", "..", "..");

/** The files the generator reads and writes, copied into a temporary folder. */
function copyOfDeploymentFiles(): string {
  const copy = mkdtempSync(join(tmpdir(), "deploy-generate-"));
  cpSync(join(ROOT, "docker-compose.yml"), join(copy, "docker-compose.yml"));
  cpSync(join(ROOT, "k8s", "base"), join(copy, "k8s", "base"), { recursive: true });
  return copy;
}

/** docker-compose.yml's app blocks and k8s/base's app folders are generated (`npm run deploy:generate`). */
describe("the generated deployment files", () => {
  it("are what `npm run deploy:generate` makes of the catalogue and the deployment description", () => {
    expect(staleDeploymentFiles(CATALOGUE, ROOT).map((file) => `${file} differs from the generator's output: run ${GENERATE_COMMAND}`)).toEqual([]);
  });

  it("give a new catalogue entry its compose services and k8s folders, and take them away with it", () => {
    const copy = copyOfDeploymentFiles();
    try {
      const written = writeDeployment(WITH_REPORTS, copy, {
        ...DEPLOYMENT,
        reports: { calls: [{ service: "courses", why: "reports name courses" }], workers: { "reports-worker": { egress: ["openai"] } } },
      });
      expect(written).toEqual(
        expect.arrayContaining([
          "docker-compose.yml",
          "k8s/base/kustomization.yaml",
          "k8s/base/reports/deployment.yaml",
          "k8s/base/reports-worker/pdb.yaml",
        ]),
      );
      const compose = readFileSync(join(copy, "docker-compose.yml"), "utf8");
      expect(compose).toContain("  reports-migrate:\n");
      expect(compose).toContain("  reports-worker:\n");
      expect(compose).toMatch(new RegExp(`STUDY_DATABASES: gateway .* ${LAST_SERVICE} reports\n`));
      expect(compose).toContain(`  REPORTS_GRPC_ADDRESS: reports:${REPORTS_PORT}\n`);
      // The call is an address setting of the caller and a rule at both ends.
      expect(readFileSync(join(copy, "k8s/base/reports/configmap.yaml"), "utf8")).toContain("COURSES_GRPC_ADDRESS: courses:50051");
      expect(readFileSync(join(copy, "k8s/base/courses/networkpolicy.yaml"), "utf8")).toContain(
        "# reports: reports name courses (COURSES_GRPC_ADDRESS).",
      );
      // Its worker's way out: the NetworkPolicy of that way selects it.
      expect(readFileSync(join(copy, "k8s/base/network/egress-openai.yaml"), "utf8")).toContain("          - reports-worker\n");
      expect(readdirSync(join(copy, "k8s/base/reports")).sort()).toEqual([
        "configmap.yaml",
        "deployment.yaml",
        "hpa.yaml",
        "networkpolicy.yaml",
        "pdb.yaml",
        "service.yaml",
      ]);

      expect(writeDeployment(CATALOGUE, copy)).toEqual(expect.arrayContaining(["k8s/base/reports/service.yaml", "k8s/base/reports-worker/hpa.yaml"]));
      expect(existsSync(join(copy, "k8s/base/reports"))).toBe(false);
      expect(readFileSync(join(copy, "k8s/base/network/egress-openai.yaml"), "utf8")).not.toContain("reports-worker");
      expect(staleDeploymentFiles(CATALOGUE, copy)).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("refuses a call to a service that is neither in the catalogue nor the gateway", () => {
    expect(() => renderDeployment(CATALOGUE, ROOT, { ...DEPLOYMENT, chat: { calls: [{ service: "planner", why: "plans" }] } })).toThrow(
      "deployment description: chat calls planner, which is neither a catalogue service nor the gateway",
    );
  });
});

/** `*_GRPC_ADDRESS` settings named in a service's sources (tests aside). */
function addressesReadBy(directory: string): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
    );
  const named = files(join(ROOT, directory, "src")).flatMap((file) => readFileSync(file, "utf8").match(/\b[A-Z]+_GRPC_ADDRESS\b/g) ?? []);
  return [...new Set(named)].sort();
}

/**
 * The NetworkPolicies allow exactly the calls of the description, so the description must hold every call the code
 * makes: a service whose sources read another's address without a `calls` entry would be blocked in the cluster.
 */
describe("the deployment description's calls", () => {
  const variables = new Map<string, string>([
    ...CATALOGUE.map((entry): [string, string] => [entry.name, entry.grpcAddressVariable]),
    [GATEWAY_APP.name, GATEWAY_APP.grpcAddressVariable],
  ]);

  it.each(CATALOGUE.map((entry) => [entry.name, entry.directory]))("hold every address %s's sources read", (name, directory) => {
    const own = variables.get(name);
    const called = (DEPLOYMENT[name]?.calls ?? []).map((call) => variables.get(call.service));
    expect(addressesReadBy(directory).filter((variable) => variable !== own && !called.includes(variable))).toEqual([]);
  });
});
