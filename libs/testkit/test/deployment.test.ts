/**
 * Static checks of the deployment files: docker-compose.yml and the kustomize manifests under k8s/.
 * They parse the YAML, check the fields that a rollout depends on, check that every gRPC service
 * declared in proto/ (and the gateway) has its Deployment and its compose service, and that both files
 * agree with the service catalogue (libs/platform/src/catalogue.ts); the apps' parts are generated from it
 * (`npm run deploy:generate`, whose staleness test is test/unit/deployment-generated.test.ts). No cluster, no
 * Docker engine: the only external command is `docker-compose config -q`, when the binary exists.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { CATALOGUE, GATEWAY_APP, processNamesOf, type Catalogue } from "@study/platform/catalogue";
import { APP_NODE_OPTIONS } from "@study/testkit";
import { DEPLOYMENT, renderDeployment } from "../src/deployment";
import { REPORTS_ENTRY, REPORTS_PORT, WITH_REPORTS } from "./fixtures/reports-service";
import { CORE_SCHEMA, load, loadAll, mergeTag } from "js-yaml";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML of any shape, read field by field with checks
type Obj = Record<string, any>;

const root = path.resolve(__dirname, "../../..");
const k8sDir = path.join(root, "k8s");
const composeFile = path.join(root, "docker-compose.yml");

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);
const rel = (file: string) => path.relative(root, file);

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const full = path.join(dir, entry);
      return statSync(full).isDirectory() ? walk(full) : [full];
    });
}

const isYaml = (file: string) => /\.ya?ml$/.test(file);
const isKustomization = (file: string) => /^kustomization\.ya?ml$/.test(path.basename(file));

// --- the apps that must be deployable --------------------------------------------------------------

/** `proto/study/<name>/v1/*.proto` files that define a `service`, minus the shared packages. */
function protoServiceNames(): string[] {
  const studyDir = path.join(root, "proto", "study");
  const names = readdirSync(studyDir)
    .filter((name) => name !== "common" && name !== "events")
    .filter((name) => {
      const v1 = path.join(studyDir, name, "v1");
      if (!existsSync(v1)) return false;
      return readdirSync(v1)
        .filter((file) => file.endsWith(".proto"))
        .some((file) => /^\s*service\s+\w+\s*\{/m.test(readFileSync(path.join(v1, file), "utf8")));
    });
  return names.sort();
}

interface App {
  name: string;
  /** Workspace folder, as passed to the Dockerfile's APP build arg. */
  dir: string;
  kind: "gateway" | "grpc";
}

const serviceNames = protoServiceNames();
// proto/study/gateway is the gateway's own gRPC API: the gateway is deployed as the gateway, not as a service.
const apps: App[] = [
  { name: "gateway", dir: "gateway", kind: "gateway" },
  ...serviceNames.filter((name) => name !== "gateway").map((name): App => ({ name, dir: `services/${name}`, kind: "grpc" })),
];

// --- docker-compose.yml ----------------------------------------------------------------------------

const composeText = readFileSync(composeFile, "utf8");
// Compose files use YAML merge keys (`<<: *anchor`), which js-yaml's default schema leaves unresolved.
const compose = load(composeText, { schema: CORE_SCHEMA.withTags(mergeTag) }) as Obj;
const composeServices: Record<string, Obj> = isObj(compose?.services) ? compose.services : {};

/** One-shot services (migrations): they run to completion and are never restarted. */
const isOneShot = (service: Obj) => service.restart === "no";
/** Services that are deliberately left without a healthcheck; their dependents wait for service_started. */
const WITHOUT_HEALTHCHECK = new Set(["jaeger"]);

function commandOf(service: Obj): string {
  const command = service.command;
  return Array.isArray(command) ? command.join(" ") : String(command ?? "");
}

function environmentOf(service: Obj): Record<string, string> {
  const env = service.environment;
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry: string) => {
        const at = entry.indexOf("=");
        return at < 0 ? [entry, ""] : [entry.slice(0, at), entry.slice(at + 1)];
      }),
    );
  }
  return isObj(env) ? Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])) : {};
}

function dependsOn(service: Obj): Record<string, string> {
  const deps = service.depends_on;
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((name: string) => [name, "(short form)"]));
  return isObj(deps) ? Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, String(isObj(v) ? v.condition : v)])) : {};
}

function findComposeBinary(): string | undefined {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const candidate = path.join(dir, "docker-compose");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
      // eslint-disable-next-line no-restricted-syntax -- not executable here: look in the next PATH folder
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

describe("docker-compose.yml", () => {
  it("defines services", () => {
    expect(Object.keys(composeServices).length).toBeGreaterThan(0);
  });

  it("runs the image's apps with the V8 options the local stack and the benchmarks use", () => {
    const nodeOptions = /NODE_OPTIONS="([^"]*)"/.exec(readFileSync(path.join(root, "Dockerfile"), "utf8"))?.[1] ?? "";
    expect(nodeOptions.split(" ")).toEqual(expect.arrayContaining(APP_NODE_OPTIONS.split(" ")));
  });

  it("gives every service an image or a build from the root Dockerfile", () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(composeServices)) {
      if (!service.image && !service.build) problems.push(`${name}: neither image nor build`);
      if (service.build) {
        const build = isObj(service.build) ? service.build : { context: service.build };
        const context = path.resolve(root, String(build.context ?? "."));
        const dockerfile = path.resolve(context, String(build.dockerfile ?? "Dockerfile"));
        if (context !== root) problems.push(`${name}: build context must be the repo root, got ${build.context}`);
        if (!existsSync(dockerfile)) problems.push(`${name}: ${rel(dockerfile)} does not exist`);
        if (!build.args?.APP) problems.push(`${name}: build.args.APP is missing`);
        if (!service.image) problems.push(`${name}: a built service needs an image name (shared with its migrate service)`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("gives every long-running service a healthcheck", () => {
    const missing = Object.entries(composeServices)
      .filter(([name, service]) => !isOneShot(service) && !WITHOUT_HEALTHCHECK.has(name))
      .filter(([, service]) => !isObj(service.healthcheck) || !service.healthcheck.test)
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it("uses depends_on conditions that match what the dependency provides", () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(composeServices)) {
      for (const [dep, condition] of Object.entries(dependsOn(service))) {
        const target = composeServices[dep];
        if (!target) {
          problems.push(`${name} depends on unknown service ${dep}`);
        } else if (condition === "service_healthy" && !isObj(target.healthcheck)) {
          problems.push(`${name} waits for ${dep} to be healthy, but ${dep} has no healthcheck`);
        } else if (condition === "service_completed_successfully" && !isOneShot(target)) {
          problems.push(`${name} waits for ${dep} to complete, but ${dep} is not a one-shot (restart: "no")`);
        } else if (!["service_started", "service_healthy", "service_completed_successfully"].includes(condition)) {
          problems.push(`${name} -> ${dep}: depends_on needs an explicit condition, got ${condition}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("gives every app process its own internal-auth key and the trust list, from the environment", () => {
    const problems: string[] = [];
    for (const name of processNamesOf()) {
      const environment = environmentOf(composeServices[name] ?? {});
      const variable = `${name.toUpperCase().replaceAll("-", "_")}_INTERNAL_AUTH_KEY`;
      if (!(environment.INTERNAL_AUTH_KEY ?? "").startsWith(`\${${variable}:?`))
        problems.push(`${name}: INTERNAL_AUTH_KEY must be \${${variable}:?…}`);
      if (!(environment.INTERNAL_AUTH_PUBLIC_KEYS ?? "").startsWith("${INTERNAL_AUTH_PUBLIC_KEYS:?"))
        problems.push(`${name}: no INTERNAL_AUTH_PUBLIC_KEYS`);
    }
    expect(problems).toEqual([]);
  });

  it("takes secrets from the environment instead of committing them", () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(composeServices)) {
      for (const [key, value] of Object.entries(environmentOf(service))) {
        if (/(SECRET|PASSWORD|PASS|MASTER_KEY)$/.test(key) && !/^\$\{[A-Z0-9_]+:\?/.test(value)) {
          problems.push(`${name}.${key} must be \${VAR:?message} (required from the environment)`);
        }
        if (/^(DATABASE_URL|RABBITMQ_URL)$/.test(key) && /:\/\/[^/@]*:[^$/@][^/@]*@/.test(value)) {
          problems.push(`${name}.${key} embeds a literal password`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(composeText).toMatch(/AUTH_SECRET: \$\{AUTH_SECRET:\?/);
  });

  const binary = findComposeBinary();
  (binary ? it : it.skip)(
    binary ? "is accepted by `docker-compose config -q`" : "is accepted by `docker-compose config -q` (SKIPPED: no docker-compose binary on PATH)",
    () => {
      const result = spawnSync(binary!, ["-f", composeFile, "config", "-q"], {
        cwd: root,
        encoding: "utf8",
        timeout: 15_000,
        env: {
          ...process.env,
          // Dummy values for the variables the file requires (`${VAR:?...}`).
          AUTH_SECRET: "x".repeat(32),
          POSTGRES_PASSWORD: "postgres-password",
          RABBITMQ_PASSWORD: "rabbitmq-password",
          MEILI_MASTER_KEY: "meilisearch-master-key",
          INTERNAL_UPLOAD_SECRET: "u".repeat(32),
          STRIPE_SECRET_KEY: "sk_live_dummy",
          STRIPE_WEBHOOK_SECRET: "whsec_dummy",
          // Every process's internal-auth key and the trust list, as `npm run -s internal-auth-keys` prints them.
          ...Object.fromEntries(
            execFileSync(process.execPath, [path.join(root, "libs/grpc/dist/keys-command.js")], { encoding: "utf8" })
              .trim()
              .split("\n")
              .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
          ),
        },
      });
      expect(result.error).toBeUndefined();
      // stderr is part of the compared object so that a failure shows docker-compose's own message.
      expect({ status: result.status, stderr: result.stderr.trim() }).toEqual(expect.objectContaining({ status: 0 }));
    },
  );
});

// --- k8s/ ------------------------------------------------------------------------------------------

interface Manifest {
  file: string;
  doc: Obj;
}

const k8sYamlFiles = walk(k8sDir).filter(isYaml);
const kustomizationFiles = k8sYamlFiles.filter(isKustomization);
const manifests: Manifest[] = k8sYamlFiles
  .filter((file) => !isKustomization(file))
  .flatMap((file) =>
    loadAll(readFileSync(file, "utf8"))
      .filter(isObj)
      .map((doc) => ({ file, doc })),
  );

const ofKind = (kind: string) => manifests.filter((m) => m.doc.kind === kind);
const deployments = ofKind("Deployment");
const k8sServices = ofKind("Service");
const configMaps = ofKind("ConfigMap");
const readme = existsSync(path.join(k8sDir, "README.md")) ? readFileSync(path.join(k8sDir, "README.md"), "utf8") : "";

const podSpec = (d: Obj): Obj => d.spec?.template?.spec ?? {};
const podLabels = (d: Obj): Obj => d.spec?.template?.metadata?.labels ?? {};
const containersOf = (d: Obj): Obj[] => podSpec(d).containers ?? [];
const initContainersOf = (d: Obj): Obj[] => podSpec(d).initContainers ?? [];
const labelsMatch = (selector: Obj, labels: Obj) => Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const commandLine = (c: Obj) => [...(c.command ?? []), ...(c.args ?? [])].join(" ");

/** Problems with a container's image, resources and securityContext (pod-level settings count too). */
function containerProblems(where: string, container: Obj, pod: Obj): string[] {
  const problems: string[] = [];
  const sc: Obj = container.securityContext ?? {};
  const podSc: Obj = pod.securityContext ?? {};
  const pick = (key: string) => (sc[key] !== undefined ? sc[key] : podSc[key]);
  if (!container.image) problems.push(`${where}: no image`);
  for (const level of ["requests", "limits"]) {
    for (const resource of ["cpu", "memory"]) {
      if (!container.resources?.[level]?.[resource]) problems.push(`${where}: no resources.${level}.${resource}`);
    }
  }
  if (pick("runAsNonRoot") !== true) problems.push(`${where}: runAsNonRoot is not true`);
  const uid = pick("runAsUser");
  if (typeof uid !== "number" || uid === 0) problems.push(`${where}: runAsUser must be a non-zero number`);
  if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
  if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
  if (!(sc.capabilities?.drop ?? []).includes("ALL")) problems.push(`${where}: capabilities.drop lacks ALL`);
  if ((sc.seccompProfile ?? podSc.seccompProfile)?.type !== "RuntimeDefault") {
    problems.push(`${where}: seccompProfile is not RuntimeDefault`);
  }
  return problems;
}

/** Files a kustomization refers to (resources, patches, generators), resolved against its folder. */
function kustomizationReferences(file: string, doc: Obj): string[] {
  const dir = path.dirname(file);
  const refs: string[] = [
    ...(doc.resources ?? []),
    ...(doc.components ?? []),
    ...(doc.crds ?? []),
    ...(doc.patchesStrategicMerge ?? []).filter((p: unknown) => typeof p === "string" && !p.includes("\n")),
    ...(doc.patches ?? []).map((p: Obj) => p?.path).filter(Boolean),
    ...(doc.patchesJson6902 ?? []).map((p: Obj) => p?.path).filter(Boolean),
    ...[...(doc.configMapGenerator ?? []), ...(doc.secretGenerator ?? [])].flatMap((g: Obj) => [
      ...(g.files ?? []).map((f: string) => f.slice(f.indexOf("=") + 1)),
      ...(g.envs ?? []),
      ...(g.env ? [g.env] : []),
    ]),
  ];
  return refs.filter((r) => !/^[a-z]+:\/\//.test(r)).map((r) => path.resolve(dir, r));
}

describe("k8s manifests", () => {
  it("exist and parse into typed objects", () => {
    expect(kustomizationFiles.length).toBeGreaterThan(0);
    const problems = manifests
      .filter(({ doc }) => !doc.apiVersion || !doc.kind || !doc.metadata?.name)
      .map(({ file }) => `${rel(file)}: a document lacks apiVersion, kind or metadata.name`);
    expect(problems).toEqual([]);
  });

  it("commit no Secret objects", () => {
    expect(ofKind("Secret").map(({ file, doc }) => `${rel(file)}: Secret ${doc.metadata?.name}`)).toEqual([]);
  });

  it("list in each kustomization only files that exist, and every manifest file", () => {
    const problems: string[] = [];
    const ownedElsewhere = kustomizationFiles.map((file) => path.dirname(file));
    for (const file of kustomizationFiles) {
      const doc = load(readFileSync(file, "utf8")) as Obj;
      const dir = path.dirname(file);
      const refs = kustomizationReferences(file, doc);
      for (const ref of refs) {
        const isDir = existsSync(ref) && statSync(ref).isDirectory();
        if (!existsSync(ref)) problems.push(`${rel(file)} lists ${rel(ref)}, which does not exist`);
        else if (isDir && !readdirSync(ref).some((f) => isKustomization(f))) {
          problems.push(`${rel(file)} lists folder ${rel(ref)}, which has no kustomization.yaml`);
        }
      }
      // Every YAML file in this kustomization's tree, except those of nested kustomizations, is listed.
      const nested = ownedElsewhere.filter((other) => other !== dir && other.startsWith(dir + path.sep));
      const owned = walk(dir)
        .filter(isYaml)
        .filter((f) => !isKustomization(f))
        .filter((f) => !nested.some((n) => f.startsWith(n + path.sep)));
      for (const f of owned) {
        if (!refs.includes(f)) problems.push(`${rel(f)} is not listed in ${rel(file)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("give every Deployment hardened, resourced and probed containers", () => {
    expect(deployments.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const { file, doc } of deployments) {
      const name = `${rel(file)}: Deployment ${doc.metadata.name}`;
      const pod = podSpec(doc);
      // The HorizontalPodAutoscaler owns the count (k8s.test.ts checks its bounds on the rendered overlays).
      if (doc.spec?.replicas !== undefined) problems.push(`${name}: replicas must be left to its HorizontalPodAutoscaler`);
      if (!labelsMatch(doc.spec?.selector?.matchLabels ?? {}, podLabels(doc))) {
        problems.push(`${name}: selector.matchLabels does not match the pod template labels`);
      }
      if (podLabels(doc)["app.kubernetes.io/name"] !== doc.metadata.name) {
        problems.push(`${name}: pod label app.kubernetes.io/name must be ${doc.metadata.name}`);
      }
      if (containersOf(doc).length === 0) problems.push(`${name}: no containers`);
      for (const c of containersOf(doc)) {
        problems.push(...containerProblems(`${name} container ${c.name}`, c, pod));
        if (!c.readinessProbe) problems.push(`${name} container ${c.name}: no readinessProbe`);
        if (!c.livenessProbe) problems.push(`${name} container ${c.name}: no livenessProbe`);
      }
      for (const c of initContainersOf(doc)) {
        problems.push(...containerProblems(`${name} initContainer ${c.name}`, c, pod));
      }
    }
    expect(problems).toEqual([]);
  });

  it("refer only to ConfigMaps that exist and to Secrets documented in k8s/README.md", () => {
    const configMapNames = new Set(configMaps.map(({ doc }) => doc.metadata.name));
    const problems: string[] = [];
    for (const { doc } of deployments) {
      for (const c of [...containersOf(doc), ...initContainersOf(doc)]) {
        const where = `Deployment ${doc.metadata.name} container ${c.name}`;
        for (const from of c.envFrom ?? []) {
          if (from.configMapRef && !configMapNames.has(from.configMapRef.name)) {
            problems.push(`${where}: ConfigMap ${from.configMapRef.name} is not defined`);
          }
          if (from.secretRef && !readme.includes(`\`${from.secretRef.name}\``)) {
            problems.push(`${where}: Secret ${from.secretRef.name} is not documented in k8s/README.md`);
          }
        }
        for (const env of c.env ?? []) {
          const secret = env.valueFrom?.secretKeyRef;
          if (secret && !readme.includes(`\`${secret.name}\``)) {
            problems.push(`${where}: Secret ${secret.name} is not documented in k8s/README.md`);
          }
          if (secret && !readme.includes(`\`${secret.key}\``)) {
            problems.push(`${where}: key ${secret.key} of Secret ${secret.name} is not documented in k8s/README.md`);
          }
          if (env.value !== undefined && /SECRET|PASSWORD|DATABASE_URL|RABBITMQ_URL/.test(env.name)) {
            problems.push(`${where}: ${env.name} must come from a Secret, not a literal value`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("give every Service ports and a selector that matches a Deployment's pods", () => {
    expect(k8sServices.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const { file, doc } of k8sServices) {
      const name = `${rel(file)}: Service ${doc.metadata.name}`;
      const ports: Obj[] = doc.spec?.ports ?? [];
      if (ports.length === 0) problems.push(`${name}: no ports`);
      const selector: Obj = doc.spec?.selector ?? {};
      const targets = deployments.filter(({ doc: d }) => labelsMatch(selector, podLabels(d)));
      if (targets.length === 0) {
        problems.push(`${name}: selector ${JSON.stringify(selector)} matches no Deployment's pod labels`);
        continue;
      }
      const containerPorts = targets.flatMap(({ doc: d }) => containersOf(d).flatMap((c) => c.ports ?? []));
      for (const port of ports) {
        if (typeof port.port !== "number") problems.push(`${name}: a port has no number`);
        const target = port.targetPort ?? port.port;
        const known = containerPorts.some((cp: Obj) => cp.name === target || cp.containerPort === target);
        if (!known) problems.push(`${name}: targetPort ${target} is not a container port of the selected pods`);
      }
    }
    expect(problems).toEqual([]);
  });
});

// --- every app is deployable -----------------------------------------------------------------------

describe("every app has its deployment", () => {
  it("finds the gRPC services declared in proto/", () => {
    // Guards against a vacuous pass if the proto layout changes.
    expect(serviceNames).toEqual(expect.arrayContaining(["courses", "notifications"]));
    expect(serviceNames).not.toContain("common");
    expect(serviceNames).not.toContain("events");
  });

  it("exposes the gateway's own gRPC API (proto/study/gateway) on GRPC_PORT, next to HTTP", () => {
    expect(serviceNames).toContain("gateway");
    const deployment = deployments.find(({ doc }) => doc.metadata.name === "gateway")?.doc;
    const main = containersOf(deployment ?? {})[0] ?? {};
    const configMapName = (main.envFrom ?? []).find((f: Obj) => f.configMapRef)?.configMapRef?.name;
    const grpcPort = Number(configMaps.find(({ doc }) => doc.metadata.name === configMapName)?.doc.data?.GRPC_PORT);
    expect(grpcPort).toBeGreaterThan(0);
    expect(main.ports).toEqual(expect.arrayContaining([expect.objectContaining({ name: "grpc", containerPort: grpcPort })]));
    const service = k8sServices.find(({ doc }) => doc.metadata.name === "gateway")?.doc;
    expect(service?.spec.ports).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "grpc", port: grpcPort, targetPort: "grpc", appProtocol: "grpc" })]),
    );
    expect(environmentOf(composeServices.gateway ?? {}).GRPC_PORT).toBe(String(grpcPort));
  });

  describe.each(apps)("$name", (app) => {
    const deployment = deployments.find(({ doc }) => doc.metadata.name === app.name)?.doc;

    it("has a k8s Deployment that migrates in an init container and then runs the app", () => {
      expect(deployment).toBeDefined();
      const main = containersOf(deployment!).find((c) => c.name === app.name) ?? containersOf(deployment!)[0];
      expect(initContainersOf(deployment!).map(commandLine)).toContain(`node ${app.dir}/dist/migrate.js`);
      expect(commandLine(main ?? {})).toBe(`node ${app.dir}/dist/main.js`);
    });

    it("has a k8s Service and ConfigMap wired to the right port and probes", () => {
      const service = k8sServices.find(({ doc }) => doc.metadata.name === app.name)?.doc;
      expect(service).toBeDefined();
      const main = containersOf(deployment!)[0];
      const configMapName = (main.envFrom ?? []).find((f: Obj) => f.configMapRef)?.configMapRef?.name;
      const config = configMaps.find(({ doc }) => doc.metadata.name === configMapName)?.doc;
      expect(config).toBeDefined();
      const port: Obj = service!.spec.ports[0];
      if (app.kind === "grpc") {
        const grpcPort = Number(config!.data?.GRPC_PORT);
        expect(main.ports).toEqual(expect.arrayContaining([expect.objectContaining({ name: "grpc", containerPort: grpcPort })]));
        expect(main.readinessProbe?.grpc?.port).toBe(grpcPort);
        expect(main.livenessProbe?.grpc?.port).toBe(grpcPort);
        expect(port).toMatchObject({ name: "grpc", port: grpcPort, appProtocol: "grpc" });
        expect(service!.spec.type ?? "ClusterIP").toBe("ClusterIP");
      } else {
        expect(main.ports).toEqual(expect.arrayContaining([expect.objectContaining({ containerPort: Number(config!.data?.PORT) })]));
        expect(main.readinessProbe?.httpGet?.path).toBe("/health");
        expect(main.livenessProbe?.httpGet?.path).toBe("/health/live");
        expect(port).toMatchObject({ port: 80, targetPort: "http" });
        expect(service!.spec.type ?? "ClusterIP").toBe("ClusterIP");
      }
    });

    it("has a compose service built from its workspace that starts after its migration", () => {
      const service = composeServices[app.name];
      expect(service).toBeDefined();
      expect(service.build?.args?.APP).toBe(app.dir);
      expect(commandOf(service)).toBe(`node ${app.dir}/dist/main.js`);
      const migrations = Object.entries(dependsOn(service))
        .filter(([, condition]) => condition === "service_completed_successfully")
        .map(([dep]) => composeServices[dep]);
      expect(migrations.map((m) => commandOf(m ?? {}))).toContain(`node ${app.dir}/dist/migrate.js`);
    });

    it("has its own compose database, created by the postgres service", () => {
      const url = environmentOf(composeServices[app.name] ?? {}).DATABASE_URL ?? "";
      const database = url.replace(/\?.*$/, "").split("/").pop();
      expect(database).toBe(app.name);
      const created = (environmentOf(composeServices.postgres ?? {}).STUDY_DATABASES ?? "").split(/\s+/);
      expect(created).toContain(app.name);
    });
  });
});

// --- the catalogue ---------------------------------------------------------------------------------

/** The parts of the deployment files the catalogue check reads (a fixture passes edited copies). */
interface DeploymentFiles {
  compose: Record<string, Obj>;
  k8s: Obj[];
}

/** A k8s container's environment: its ConfigMaps (envFrom) and its literal `env` values. */
function k8sEnvironment(container: Obj, k8s: Obj[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const map = k8s.find((doc) => doc.kind === "ConfigMap" && doc.metadata?.name === from.configMapRef?.name);
    for (const [key, value] of Object.entries(map?.data ?? {})) env[key] = String(value);
  }
  for (const entry of container.env ?? []) if (entry.value !== undefined) env[entry.name] = String(entry.value);
  return env;
}

/**
 * Where docker-compose.yml and k8s/ disagree with a catalogue: every service and extra process has a compose
 * service and a k8s Deployment running its script, on the catalogue's ports, and the gateway (and every other
 * process) gets the catalogue's addresses; nothing runs a service the catalogue does not name.
 */
function catalogueDisagreements(catalogue: Catalogue, files: DeploymentFiles): string[] {
  const problems: string[] = [];
  const deploymentNamed = (name: string) => files.k8s.find((doc) => doc.kind === "Deployment" && doc.metadata?.name === name);
  const k8sServiceNamed = (name: string) => files.k8s.find((doc) => doc.kind === "Service" && doc.metadata?.name === name);
  const composeEnv = (name: string) => environmentOf(files.compose[name] ?? {});
  const k8sEnv = (name: string) => k8sEnvironment(containersOf(deploymentNamed(name) ?? {})[0] ?? {}, files.k8s);
  const expect = (where: string, variable: string, actual: string | undefined, wanted: string) => {
    if (actual !== wanted) problems.push(`${where}: ${variable} is ${actual ?? "unset"}, the catalogue says ${wanted}`);
  };

  for (const entry of catalogue) {
    const address = `${entry.name}:${entry.grpcPort}`;
    const processes = [
      { name: entry.name, command: `node ${entry.directory}/dist/main.js`, healthPortVariable: undefined as string | undefined },
      ...(entry.extraProcesses ?? []).map((extra) => ({
        name: extra.name,
        command: `node ${entry.directory}/${extra.script}`,
        healthPortVariable: extra.healthPortVariable,
      })),
    ];
    for (const process of processes) {
      const composeService = files.compose[process.name];
      if (!composeService) problems.push(`${process.name}: no compose service`);
      else {
        if (commandOf(composeService) !== process.command) problems.push(`${process.name} (compose): command is not \`${process.command}\``);
        if (process.healthPortVariable && !composeEnv(process.name)[process.healthPortVariable]) {
          problems.push(`${process.name} (compose): ${process.healthPortVariable} is not set`);
        }
      }
      const deployment = deploymentNamed(process.name);
      if (!deployment) problems.push(`${process.name}: no k8s Deployment`);
      else {
        if (commandLine(containersOf(deployment)[0] ?? {}) !== process.command)
          problems.push(`${process.name} (k8s): command is not \`${process.command}\``);
        if (process.healthPortVariable && !k8sEnv(process.name)[process.healthPortVariable]) {
          problems.push(`${process.name} (k8s): ${process.healthPortVariable} is not set`);
        }
      }
    }
    if (files.compose[entry.name]) expect(`${entry.name} (compose)`, "GRPC_PORT", composeEnv(entry.name).GRPC_PORT, String(entry.grpcPort));
    if (deploymentNamed(entry.name)) expect(`${entry.name} (k8s)`, "GRPC_PORT", k8sEnv(entry.name).GRPC_PORT, String(entry.grpcPort));
    const servicePorts: Obj[] = k8sServiceNamed(entry.name)?.spec?.ports ?? [];
    if (!servicePorts.some((p) => p.name === "grpc" && p.port === entry.grpcPort)) {
      problems.push(`${entry.name} (k8s): no Service port grpc ${entry.grpcPort}`);
    }
    expect("gateway (compose)", entry.grpcAddressVariable, composeEnv("gateway")[entry.grpcAddressVariable], address);
    expect("gateway (k8s)", entry.grpcAddressVariable, k8sEnv("gateway")[entry.grpcAddressVariable], address);
    for (const http of entry.http ?? []) {
      const url = `http://${entry.name}:${http.defaultPort}`;
      if (files.compose[entry.name])
        expect(`${entry.name} (compose)`, http.portVariable, composeEnv(entry.name)[http.portVariable], String(http.defaultPort));
      if (deploymentNamed(entry.name))
        expect(`${entry.name} (k8s)`, http.portVariable, k8sEnv(entry.name)[http.portVariable], String(http.defaultPort));
      if (!servicePorts.some((p) => p.port === http.defaultPort)) problems.push(`${entry.name} (k8s): no Service port ${http.defaultPort}`);
      expect("gateway (compose)", http.gatewayUrlVariable, composeEnv("gateway")[http.gatewayUrlVariable], url);
      expect("gateway (k8s)", http.gatewayUrlVariable, k8sEnv("gateway")[http.gatewayUrlVariable], url);
    }
  }

  // Any process that finds a service (media finds courses, the calendar the gateway's IdentityService) finds it at
  // the catalogue's address.
  const addresses = new Map([
    ...catalogue.map((entry) => [entry.grpcAddressVariable, `${entry.name}:${entry.grpcPort}`] as const),
    [GATEWAY_APP.grpcAddressVariable, `${GATEWAY_APP.name}:${GATEWAY_APP.grpcPort}`] as const,
  ]);
  const environments = [
    ...Object.keys(files.compose).map((name) => [`${name} (compose)`, composeEnv(name)] as const),
    ...files.k8s.filter((doc) => doc.kind === "Deployment").map((doc) => [`${doc.metadata.name} (k8s)`, k8sEnv(doc.metadata.name)] as const),
  ];
  for (const [where, env] of environments) {
    for (const [variable, value] of Object.entries(env)) {
      if (!variable.endsWith("_GRPC_ADDRESS")) continue;
      if (!addresses.has(variable)) problems.push(`${where}: ${variable} names no catalogue service`);
      else expect(where, variable, value, addresses.get(variable)!);
    }
  }

  // Nothing deploys a service the catalogue does not know (it would be missing from npm start and /health).
  const known = new Set([
    GATEWAY_APP.name,
    ...catalogue.flatMap((entry) => [entry.name, ...(entry.extraProcesses ?? []).map((extra) => extra.name)]),
  ]);
  const runsAService = (command: string) => /^node (services\/[^/]+|gateway)\/dist\//.test(command) && !command.endsWith("/migrate.js");
  for (const [name, service] of Object.entries(files.compose)) {
    if (runsAService(commandOf(service)) && !known.has(name)) problems.push(`${name} (compose): not in the catalogue`);
  }
  for (const doc of files.k8s.filter((d) => d.kind === "Deployment")) {
    if (runsAService(commandLine(containersOf(doc)[0] ?? {})) && !known.has(doc.metadata.name)) {
      problems.push(`${doc.metadata.name} (k8s): not in the catalogue`);
    }
  }
  // The gateway's addresses are checked both as the gateway's and as any process's: report each once.
  return [...new Set(problems)];
}

describe("the service catalogue (libs/platform/src/catalogue.ts)", () => {
  const files: DeploymentFiles = { compose: composeServices, k8s: manifests.map(({ doc }) => doc) };

  it("agrees with docker-compose.yml and k8s/", () => {
    expect(catalogueDisagreements(CATALOGUE, files)).toEqual([]);
  });

  it("names every gRPC service declared in proto/ (the gateway's own API aside)", () => {
    const names = CATALOGUE.map((entry): string => entry.name);
    expect(serviceNames.filter((name) => name !== "gateway" && !names.includes(name))).toEqual([]);
  });

  it("bites: a catalogue entry without deployment files is reported, for compose and for k8s", () => {
    expect(catalogueDisagreements(WITH_REPORTS, files)).toEqual([
      "reports: no compose service",
      "reports: no k8s Deployment",
      "reports-worker: no compose service",
      "reports-worker: no k8s Deployment",
      `reports (k8s): no Service port grpc ${REPORTS_PORT}`,
      `gateway (compose): REPORTS_GRPC_ADDRESS is unset, the catalogue says reports:${REPORTS_PORT}`,
      `gateway (k8s): REPORTS_GRPC_ADDRESS is unset, the catalogue says reports:${REPORTS_PORT}`,
    ]);
  });

  it("is followed by the generator: its files for a new entry with a worker and a call agree with the catalogue", () => {
    const withReports: Catalogue = [
      ...CATALOGUE,
      { ...REPORTS_ENTRY, http: [{ portVariable: "REPORTS_HTTP_PORT", defaultPort: 50070, gatewayUrlVariable: "REPORTS_UPLOAD_URL" }] },
    ];
    const rendered = renderDeployment(withReports, root, { ...DEPLOYMENT, reports: { calls: [{ service: "courses", why: "a report's course" }] } });
    const generatedCompose = load(rendered.get("docker-compose.yml") ?? "", { schema: CORE_SCHEMA.withTags(mergeTag) }) as Obj;
    const generatedK8s = [...rendered]
      .filter(([file]) => file.startsWith("k8s/base/") && !isKustomization(file))
      .flatMap(([, text]) => loadAll(text).filter(isObj));
    expect(catalogueDisagreements(withReports, { compose: generatedCompose.services, k8s: generatedK8s })).toEqual([]);
  });

  it("bites: an address or port that differs from the catalogue, and a deployed service it does not name", () => {
    const compose = structuredClone(composeServices);
    compose.gateway.environment = { ...environmentOf(compose.gateway), STUDY_GRPC_ADDRESS: "study:9999" };
    compose.media.environment = { ...environmentOf(compose.media), MEDIA_HTTP_PORT: "8080" };
    // A name the catalogue does not have (billing was the example until it joined the catalogue).
    compose.planner = { ...compose.courses, command: ["node", "services/planner/dist/main.js"] };
    expect(catalogueDisagreements(CATALOGUE, { ...files, compose })).toEqual([
      "media (compose): MEDIA_HTTP_PORT is 8080, the catalogue says 50063",
      "gateway (compose): STUDY_GRPC_ADDRESS is study:9999, the catalogue says study:50054",
      "planner (compose): not in the catalogue",
    ]);
  });
});
