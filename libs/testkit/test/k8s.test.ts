/**
 * The Kubernetes deployment as a cluster receives it: k8s/base and every overlay of k8s/overlays rendered with
 * `kubectl kustomize` (offline), every object validated strictly against the Kubernetes API's schemas
 * (./k8s-schemas.ts: unknown fields, types, required fields, enums, formats), then the rules of the deployment
 * checked on every app the rendering holds — autoscaler, disruption budget, hardened and resourced pods, and the
 * NetworkPolicies: which pod may reach which (exactly the calls the apps' settings name), what comes in from outside
 * (only the gateway's HTTP port) and what leaves the namespace (only what an app's settings need). A new service or
 * worker is covered without editing this file.
 *
 * Where kubectl is missing, the base is assembled from its kustomization (it uses only `namespace` and `resources`)
 * and still validated and checked; the overlays' tests are skipped with a title saying so. The apps' files are
 * generated (`npm run deploy:generate`): the last part checks the generator's output for a service not yet written.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { load, loadAll } from "js-yaml";
import { DEPLOYMENT, renderDeployment } from "../src/deployment";
import { REPORTS_PORT, WITH_REPORTS } from "./fixtures/reports-service";
import { strictKubernetesValidator } from "./k8s-schemas";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered YAML of any shape, read field by field with checks
type Obj = Record<string, any>;

const root = path.resolve(__dirname, "../../..");
const k8sDir = path.join(root, "k8s");
const baseDir = path.join(k8sDir, "base");
const overlaysDir = path.join(k8sDir, "overlays");
const readme = readFileSync(path.join(k8sDir, "README.md"), "utf8");

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

function onPath(binary: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
      // eslint-disable-next-line no-restricted-syntax -- not here: look in the next PATH folder
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

const kubectl = onPath("kubectl");
const overlays = existsSync(overlaysDir)
  ? readdirSync(overlaysDir).filter((name) => existsSync(path.join(overlaysDir, name, "kustomization.yaml")))
  : [];
const SKIPPED = "SKIPPED: kubectl is not on PATH, so this was not rendered with `kubectl kustomize` (install kubectl >= 1.27)";

function kustomize(dir: string): Obj[] {
  const result = spawnSync(kubectl ?? "kubectl", ["kustomize", dir], { encoding: "utf8", timeout: 30_000, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`kubectl kustomize ${path.relative(root, dir)} failed:\n${result.stderr}`);
  return loadAll(result.stdout).filter(isObj);
}

const readBaseFile = (file: string) => readFileSync(path.join(baseDir, file), "utf8");

/** The base without kubectl: its resources, in the kustomization's namespace (its files read by `read`). */
function assembleBase(read: (file: string) => string = readBaseFile): Obj[] {
  const kustomization = load(read("kustomization.yaml")) as Obj;
  const other = Object.keys(kustomization).filter((key) => !["apiVersion", "kind", "namespace", "resources"].includes(key));
  if (other.length > 0)
    throw new Error(`k8s/base/kustomization.yaml uses ${other.join(", ")}: this stand-in for kubectl knows only namespace and resources`);
  return (kustomization.resources as string[]).flatMap((file) =>
    loadAll(read(file))
      .filter(isObj)
      .map((doc) => (doc.kind === "Namespace" ? doc : { ...doc, metadata: { ...doc.metadata, namespace: kustomization.namespace } })),
  );
}

// One validator for the file: compiling the schemas is most of its cost.
const validator = strictKubernetesValidator();

const renderings = new Map<string, Obj[]>();
/** A rendering by name ("base" or an overlay's folder name), made once. */
function rendering(name: string): Obj[] {
  let objects = renderings.get(name);
  if (!objects) {
    objects = name === "base" ? (kubectl ? kustomize(baseDir) : assembleBase()) : kustomize(path.join(overlaysDir, name));
    renderings.set(name, objects);
  }
  return objects;
}

// --- reading a rendering -----------------------------------------------------------------------------------------

const key = (o: Obj) => `${o.kind}/${o.metadata?.name}`;
const ofKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const podSpec = (d: Obj): Obj => d.spec?.template?.spec ?? {};
const podLabels = (d: Obj): Record<string, string> => d.spec?.template?.metadata?.labels ?? {};
const containersOf = (d: Obj): Obj[] => podSpec(d).containers ?? [];
const initContainersOf = (d: Obj): Obj[] => podSpec(d).initContainers ?? [];
const mainContainer = (d: Obj): Obj => containersOf(d).find((c) => c.name === d.metadata.name) ?? containersOf(d)[0] ?? {};

/** Kubernetes label selector semantics: matchLabels and matchExpressions, all of them; `{}` selects everything. */
function selects(selector: Obj | undefined, labels: Record<string, string>): boolean {
  if (!isObj(selector)) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = ((selector.matchExpressions ?? []) as Obj[]).every(({ key: k, operator, values }) => {
    if (operator === "In") return k in labels && (values as string[]).includes(labels[k]);
    if (operator === "NotIn") return !(k in labels) || !(values as string[]).includes(labels[k]);
    if (operator === "Exists") return k in labels;
    if (operator === "DoesNotExist") return !(k in labels);
    throw new Error(`unknown selector operator ${operator}`);
  });
  return byLabel && byExpression;
}

/** A Kubernetes quantity as a number (cores, bytes). */
function quantity(value: string | number): number {
  if (typeof value === "number") return value;
  const match = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/.exec(value);
  if (!match) throw new Error(`not a quantity: ${value}`);
  const binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
  const decimal: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  const suffix = match[2] ?? "";
  const factor = binary.includes(suffix)
    ? 1024 ** (binary.indexOf(suffix) + 1)
    : suffix in decimal
      ? 10 ** decimal[suffix]
      : /^[eE]/.test(suffix)
        ? 10 ** Number(suffix.slice(1))
        : 1;
  return Number(match[1]) * factor;
}

interface App {
  name: string;
  deployment: Obj;
  labels: Record<string, string>;
  /** No Service selects its pods: it takes no calls (the media and documents workers). */
  worker: boolean;
  /** Every setting its main container gets (ConfigMaps, literal values, Secret keys), with the value where known. */
  settings: Map<string, string | undefined>;
  ports: Obj[];
}

function appsOf(objects: Obj[]): App[] {
  const configMaps = ofKind(objects, "ConfigMap");
  const services = ofKind(objects, "Service");
  return ofKind(objects, "Deployment").map((deployment) => {
    const labels = podLabels(deployment);
    const main = mainContainer(deployment);
    const settings = new Map<string, string | undefined>();
    for (const from of main.envFrom ?? []) {
      const map = configMaps.find((c) => c.metadata.name === from.configMapRef?.name);
      for (const [name, value] of Object.entries(map?.data ?? {})) settings.set(name, String(value));
    }
    for (const entry of main.env ?? []) settings.set(entry.name, entry.value);
    return {
      name: deployment.metadata.name,
      deployment,
      labels,
      worker: !services.some(
        (s) => isObj(s.spec?.selector) && Object.keys(s.spec.selector).length > 0 && selects({ matchLabels: s.spec.selector }, labels),
      ),
      settings,
      ports: main.ports ?? [],
    };
  });
}

// --- network policies --------------------------------------------------------------------------------------------

interface Network {
  namespace: string;
  namespaceLabels: Record<string, string>;
  policies: Obj[];
}

function networkOf(objects: Obj[]): Network {
  const deployment = ofKind(objects, "Deployment")[0];
  const namespace = String(deployment?.metadata?.namespace);
  const namespaceObject = ofKind(objects, "Namespace").find((n) => n.metadata.name === namespace);
  // The API server labels every namespace with its name.
  return {
    namespace,
    namespaceLabels: { ...(namespaceObject?.metadata?.labels ?? {}), "kubernetes.io/metadata.name": namespace },
    policies: ofKind(objects, "NetworkPolicy"),
  };
}

const policyTypes = (p: Obj): string[] => p.spec.policyTypes ?? (p.spec.egress ? ["Ingress", "Egress"] : ["Ingress"]);
const policiesSelecting = (net: Network, app: App, type: string) =>
  net.policies.filter((p) => selects(p.spec.podSelector, app.labels) && policyTypes(p).includes(type));

/** Whether a peer (`from`/`to` entry) takes in the pods of `app`. An ipBlock is for addresses outside the cluster. */
function peerTakesIn(net: Network, peer: Obj, app: App): boolean {
  if (peer.ipBlock) return false;
  const namespaceOk = peer.namespaceSelector ? selects(peer.namespaceSelector, net.namespaceLabels) : true;
  const podOk = peer.podSelector ? selects(peer.podSelector, app.labels) : true;
  return namespaceOk && podOk;
}

function portListed(ports: Obj[] | undefined, port: Obj): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p.protocol ?? "TCP") !== (port.protocol ?? "TCP")) return false;
    if (p.port === undefined || p.port === port.name) return true;
    return p.endPort ? p.port <= port.containerPort && port.containerPort <= p.endPort : p.port === port.containerPort;
  });
}

/** Whether the policies let `from` open a connection to `to` on its container port `port`: both sides must allow it. */
function connectionAllowed(net: Network, from: App, to: App, port: Obj): boolean {
  const allows = (policies: Obj[], rulesKey: "egress" | "ingress", peersKey: "to" | "from", other: App) =>
    policies.length === 0 ||
    policies.some((p) =>
      ((p.spec[rulesKey] ?? []) as Obj[]).some(
        (rule) => portListed(rule.ports, port) && (!rule[peersKey] || (rule[peersKey] as Obj[]).some((peer) => peerTakesIn(net, peer, other))),
      ),
    );
  return allows(policiesSelecting(net, from, "Egress"), "egress", "to", to) && allows(policiesSelecting(net, to, "Ingress"), "ingress", "from", from);
}

const edge = (from: string, to: string, port: number) => `${from} → ${to}:${port}`;

/** Every connection between the apps' pods that the policies allow. */
function allowedEdges(net: Network, apps: App[]): string[] {
  return apps.flatMap((from) =>
    apps.flatMap((to) =>
      to.ports.filter((port) => connectionAllowed(net, from, to, port)).map((port) => edge(from.name, to.name, port.containerPort)),
    ),
  );
}

/**
 * The calls the apps' settings name: `*_GRPC_ADDRESS` (host:port) and `*_URL` (http://host:port) whose host is a
 * Service of the rendering, resolved to the container port behind the Service port. Workers are left out: they
 * share their service's ConfigMap, whose addresses only the service uses.
 */
function requiredEdges(objects: Obj[], apps: App[], net: Network): string[] {
  const services = ofKind(objects, "Service");
  const edges: string[] = [];
  for (const app of apps.filter((a) => !a.worker)) {
    for (const [name, value] of app.settings) {
      if (!value || !/(_GRPC_ADDRESS|_URL)$/.test(name)) continue;
      const address = /^(?:https?:\/\/)?([a-z0-9.-]+):(\d+)(?:\/.*)?$/.exec(value);
      if (!address) continue;
      const [host, port] = [address[1], Number(address[2])];
      const service = services.find((s) => host === s.metadata.name || host.startsWith(`${s.metadata.name}.${net.namespace}.`));
      const servicePort = ((service?.spec?.ports ?? []) as Obj[]).find((p) => p.port === port);
      if (!service || !servicePort) continue;
      const target = apps.find((a) => selects({ matchLabels: service.spec.selector }, a.labels));
      const targetPort = servicePort.targetPort ?? servicePort.port;
      const containerPort = target?.ports.find((p) => p.name === targetPort || p.containerPort === targetPort);
      if (target && containerPort) edges.push(edge(app.name, target.name, containerPort.containerPort));
    }
  }
  return [...new Set(edges)].sort();
}

/** A peer outside the namespace's pods: addresses, or pods of namespaces chosen by label. */
const peerOutside = (net: Network, peer: Obj) =>
  Boolean(peer.ipBlock) || (Boolean(peer.namespaceSelector) && !selects(peer.namespaceSelector, net.namespaceLabels));

/** The private, shared and link-local ranges a rule open to the internet must leave out (cluster networks, metadata). */
const NEVER_PUBLIC: Record<string, string[]> = {
  "0.0.0.0/0": ["10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12", "192.168.0.0/16"],
  "::/0": ["fc00::/7", "fe80::/10"],
};

// --- strictness, shown on purpose-made mistakes ------------------------------------------------------------------

describe("strict validation against the Kubernetes schemas (kubeconform -strict, offline)", () => {
  let deployment: Obj;
  let policy: Obj;
  beforeAll(() => {
    deployment = ofKind(rendering("base"), "Deployment")[0];
    policy = ofKind(rendering("base"), "NetworkPolicy").find((p) => p.spec.ingress?.[0]?.from) ?? {};
  });
  const copy = (o: Obj): Obj => structuredClone(o);

  it("accepts the base's objects as they are", () => {
    expect(deployment).toBeDefined();
    expect(policy.kind).toBe("NetworkPolicy");
    expect(validator.validate(deployment)).toEqual([]);
    expect(validator.validate(policy)).toEqual([]);
  });

  const mistakes: [string, () => Obj, string][] = [
    [
      "a misspelled optional field of a container",
      () => {
        const d = copy(deployment);
        d.spec.template.spec.containers[0].imagePullPolcy = "Always";
        return d;
      },
      '/spec/template/spec/containers/0: unknown field "imagePullPolcy"',
    ],
    [
      "a misspelled field of a spec",
      () => {
        const d = copy(deployment);
        d.spec.replica = 3;
        return d;
      },
      '/spec: unknown field "replica"',
    ],
    [
      "a misspelled field of a NetworkPolicy peer",
      () => {
        const p = copy(policy);
        const peer = p.spec.ingress[0].from[0];
        peer.podSelectr = peer.podSelector;
        delete peer.podSelector;
        return p;
      },
      '/spec/ingress/0/from/0: unknown field "podSelectr"',
    ],
    [
      "a wrong type",
      () => {
        const d = copy(deployment);
        d.spec.revisionHistoryLimit = "5";
        return d;
      },
      "/spec/revisionHistoryLimit: must be integer",
    ],
    [
      "a wrong type inside a list",
      () => {
        const d = copy(deployment);
        d.spec.template.spec.containers[0].ports[0].containerPort = "grpc";
        return d;
      },
      "/spec/template/spec/containers/0/ports/0/containerPort: must be integer",
    ],
    [
      "a missing required field",
      () => {
        const d = copy(deployment);
        delete d.spec.selector;
        return d;
      },
      "/spec: must have required property 'selector'",
    ],
    [
      "a value outside an enum",
      () => {
        const d = copy(deployment);
        d.spec.template.spec.containers[0].ports[0].protocol = "HTTP";
        return d;
      },
      '/spec/template/spec/containers/0/ports/0/protocol: must be equal to one of the allowed values (["SCTP","TCP","UDP"])',
    ],
    [
      "a malformed quantity",
      () => {
        const d = copy(deployment);
        d.spec.template.spec.containers[0].resources.limits.cpu = "two cores";
        return d;
      },
      '/spec/template/spec/containers/0/resources/limits/cpu: must match format "quantity"',
    ],
    ["an unknown kind", () => ({ ...copy(deployment), kind: "Deploymnet" }), "/: no schema for apps/v1 Deploymnet in the Kubernetes 1.27 API"],
  ];

  it.each(mistakes)("rejects %s", (_, make, expected) => {
    expect(validator.validate(make())).toContain(expected);
  });
});

// --- every rendering -----------------------------------------------------------------------------------------------

describe.each(["base", ...overlays])("k8s rendering %s", (name) => {
  const renderable = name === "base" || kubectl !== undefined;
  const check = renderable ? it : it.skip;
  const title = (text: string) => (renderable ? text : `${text} (${SKIPPED})`);
  // The dev overlay runs one replica per app; everywhere else a drain or a crash must leave one serving.
  const minimumReplicas = name === "dev" ? 1 : 2;

  check(
    title(name === "base" && !kubectl ? "is assembled from its kustomization (kubectl is not on PATH)" : "renders with `kubectl kustomize`"),
    () => {
      const objects = rendering(name);
      expect(ofKind(objects, "Deployment").length).toBeGreaterThan(0);
      const duplicates = objects.map(key).filter((k, i, all) => all.indexOf(k) !== i);
      expect(duplicates).toEqual([]);
      const elsewhere = objects.filter((o) => o.kind !== "Namespace" && o.metadata?.namespace !== networkOf(objects).namespace).map(key);
      expect(elsewhere).toEqual([]);
    },
  );

  if (name === "base") {
    (kubectl ? it : it.skip)(
      kubectl ? "is rendered by kubectl as the stand-in assembles it" : `is rendered by kubectl as the stand-in assembles it (${SKIPPED})`,
      () => {
        const byKey = (objects: Obj[]) => Object.fromEntries(objects.map((o) => [key(o), o]));
        expect(byKey(assembleBase())).toEqual(byKey(rendering("base")));
      },
    );
  }

  check(title("passes strict validation against the Kubernetes schemas, every object"), () => {
    const problems = rendering(name).flatMap((o) => validator.validate(o).map((p) => `${key(o)}${p}`));
    expect(problems).toEqual([]);
  });

  check(title("gives every Deployment a CPU autoscaler that owns its replica count"), () => {
    const objects = rendering(name);
    const hpas = ofKind(objects, "HorizontalPodAutoscaler");
    const problems: string[] = [];
    for (const app of appsOf(objects)) {
      const mine = hpas.filter((h) => h.spec.scaleTargetRef?.kind === "Deployment" && h.spec.scaleTargetRef?.name === app.name);
      if (mine.length !== 1) {
        problems.push(`${app.name}: ${mine.length} HorizontalPodAutoscalers target it (one expected)`);
        continue;
      }
      const { spec } = mine[0];
      const min = spec.minReplicas ?? 1;
      if (spec.scaleTargetRef.apiVersion !== "apps/v1") problems.push(`${app.name}: scaleTargetRef.apiVersion is not apps/v1`);
      if (min < minimumReplicas) problems.push(`${app.name}: minReplicas ${min} < ${minimumReplicas}`);
      if (!(spec.maxReplicas > min)) problems.push(`${app.name}: maxReplicas ${spec.maxReplicas} leaves no room above minReplicas ${min}`);
      const cpu = (spec.metrics ?? []).find((m: Obj) => m.type === "Resource" && m.resource?.name === "cpu");
      const utilisation = cpu?.resource?.target?.averageUtilization;
      if (cpu?.resource?.target?.type !== "Utilization" || !(utilisation > 0 && utilisation <= 100)) {
        problems.push(`${app.name}: no CPU utilisation target between 1 and 100 %`);
      }
      // Utilisation is usage over request: every container needs a CPU request, or the HPA cannot compute it.
      for (const c of containersOf(app.deployment)) if (!c.resources?.requests?.cpu) problems.push(`${app.name}/${c.name}: no CPU request`);
      // A replica count in the Deployment would be reset by every apply, fighting the autoscaler.
      if (app.deployment.spec.replicas !== undefined) problems.push(`${app.name}: spec.replicas is set; the HPA owns it`);
    }
    const targets = new Set(appsOf(objects).map((a) => a.name));
    for (const h of hpas) if (!targets.has(h.spec.scaleTargetRef?.name)) problems.push(`HPA ${h.metadata.name} targets no Deployment`);
    expect(problems).toEqual([]);
  });

  check(title("gives every Deployment a disruption budget that lets a drain proceed and never takes every replica"), () => {
    const objects = rendering(name);
    const apps = appsOf(objects);
    const pdbs = ofKind(objects, "PodDisruptionBudget");
    const problems: string[] = [];
    for (const app of apps) {
      const mine = pdbs.filter((p) => selects(p.spec.selector, app.labels));
      if (mine.length !== 1) {
        problems.push(`${app.name}: ${mine.length} PodDisruptionBudgets select its pods (one expected)`);
        continue;
      }
      const pdb = mine[0];
      const others = apps.filter((a) => a !== app && selects(pdb.spec.selector, a.labels)).map((a) => a.name);
      if (others.length > 0) problems.push(`PDB ${pdb.metadata.name} also selects ${others.join(", ")}`);
      const hpa = ofKind(objects, "HorizontalPodAutoscaler").find((h) => h.spec.scaleTargetRef?.name === app.name);
      const replicas: number = hpa?.spec.minReplicas ?? app.deployment.spec.replicas ?? 1;
      // Percentages are rounded up, as the disruption controller does.
      const scaled = (v: number | string) => (typeof v === "number" ? v : Math.ceil((parseFloat(v) / 100) * replicas));
      const { maxUnavailable, minAvailable } = pdb.spec;
      const disruptions = maxUnavailable !== undefined ? scaled(maxUnavailable) : minAvailable !== undefined ? replicas - scaled(minAvailable) : 0;
      if (disruptions < 1) problems.push(`${app.name}: at ${replicas} replicas its PDB allows no eviction, so a drain would hang`);
      if (replicas >= 2 && replicas - disruptions < 1) problems.push(`${app.name}: at ${replicas} replicas its PDB lets a drain evict them all`);
      if (pdb.spec.unhealthyPodEvictionPolicy !== "AlwaysAllow") {
        problems.push(`${app.name}: unhealthyPodEvictionPolicy is not AlwaysAllow (a crash-looping pod would block drains)`);
      }
    }
    expect(problems).toEqual([]);
  });

  check(title("runs every container non-root, read-only, unprivileged, resourced, with a bounded /tmp"), () => {
    const problems: string[] = [];
    for (const app of appsOf(rendering(name))) {
      const pod = podSpec(app.deployment);
      const podSc: Obj = pod.securityContext ?? {};
      if (pod.automountServiceAccountToken !== false) problems.push(`${app.name}: the service account token is mounted`);
      const volumes: Obj[] = pod.volumes ?? [];
      for (const v of volumes) if (v.emptyDir && !v.emptyDir.sizeLimit) problems.push(`${app.name}: emptyDir ${v.name} has no sizeLimit`);
      for (const c of [...initContainersOf(app.deployment), ...containersOf(app.deployment)]) {
        const where = `${app.name}/${c.name}`;
        const sc: Obj = c.securityContext ?? {};
        const pick = (k: string) => sc[k] ?? podSc[k];
        if (pick("runAsNonRoot") !== true) problems.push(`${where}: runAsNonRoot is not true`);
        if (!(pick("runAsUser") > 0)) problems.push(`${where}: runAsUser is not a non-root UID`);
        if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: the root filesystem is writable`);
        if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: privilege escalation is allowed`);
        if (!(sc.capabilities?.drop ?? []).includes("ALL")) problems.push(`${where}: capabilities are not all dropped`);
        if ((sc.capabilities?.add ?? []).length > 0) problems.push(`${where}: adds capabilities`);
        if (pick("seccompProfile")?.type !== "RuntimeDefault") problems.push(`${where}: seccomp profile is not RuntimeDefault`);
        // Node and the tools it runs write temporary files: /tmp must be a bounded emptyDir, the root being read-only.
        const tmp = (c.volumeMounts ?? []).find((m: Obj) => m.mountPath === "/tmp");
        if (!tmp || !volumes.find((v) => v.name === tmp.name)?.emptyDir) problems.push(`${where}: /tmp is not an emptyDir`);
        for (const resource of ["cpu", "memory"]) {
          const request = c.resources?.requests?.[resource];
          const limit = c.resources?.limits?.[resource];
          if (request === undefined || limit === undefined) problems.push(`${where}: ${resource} request or limit missing`);
          else if (quantity(request) > quantity(limit)) problems.push(`${where}: ${resource} request ${request} exceeds its limit ${limit}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  check(title("probes every app's readiness and liveness on a port it declares"), () => {
    const problems: string[] = [];
    for (const app of appsOf(rendering(name))) {
      const main = mainContainer(app.deployment);
      for (const probeName of ["readinessProbe", "livenessProbe"]) {
        const probe: Obj | undefined = main[probeName];
        const port = probe?.grpc?.port ?? probe?.httpGet?.port ?? probe?.tcpSocket?.port;
        if (!probe) problems.push(`${app.name}: no ${probeName}`);
        else if (port !== undefined && !app.ports.some((p) => p.name === port || p.containerPort === port)) {
          problems.push(`${app.name}: ${probeName} port ${port} is not a container port`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  check(title("denies all traffic by default, for every pod"), () => {
    const objects = rendering(name);
    const net = networkOf(objects);
    const denyAll = net.policies.filter(
      (p) =>
        isObj(p.spec.podSelector) &&
        Object.keys(p.spec.podSelector).length === 0 &&
        ["Ingress", "Egress"].every((t) => policyTypes(p).includes(t)) &&
        !(p.spec.ingress ?? []).length &&
        !(p.spec.egress ?? []).length,
    );
    expect(denyAll.map((p) => p.metadata.name)).toHaveLength(1);
    const uncovered = appsOf(objects).flatMap((app) =>
      ["Ingress", "Egress"].filter((t) => policiesSelecting(net, app, t).length === 0).map((t) => `${app.name}: no ${t} policy`),
    );
    expect(uncovered).toEqual([]);
  });

  check(title("lets exactly the calls the apps' settings name through, and nothing else between pods"), () => {
    const objects = rendering(name);
    const apps = appsOf(objects);
    const net = networkOf(objects);
    const required = requiredEdges(objects, apps, net);
    const allowed = allowedEdges(net, apps).sort();
    // Guards against a vacuous pass: the gateway calls every service.
    expect(required.filter((e) => e.startsWith("gateway → ")).length).toBeGreaterThanOrEqual(apps.filter((a) => !a.worker).length - 1);
    expect({ missing: required.filter((e) => !allowed.includes(e)), extra: allowed.filter((e) => !required.includes(e)) }).toEqual({
      missing: [],
      extra: [],
    });
    // Each call between services (the exceptions to "only the gateway calls the services") is written down.
    const undocumented = required
      .filter((e) => !e.startsWith("gateway → "))
      .map((e) => e.replace(/:\d+$/, ""))
      .filter((e) => !readme.includes(e.replace(/^(\S+) → (\S+)$/, "`$1` → `$2`")));
    expect(undocumented).toEqual([]);
  });

  check(title("lets nothing reach the workers and the workers reach no pod"), () => {
    const objects = rendering(name);
    const apps = appsOf(objects);
    const net = networkOf(objects);
    const workers = apps.filter((a) => a.worker);
    expect(workers.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const worker of workers) {
      if (worker.labels["app.kubernetes.io/component"] !== "worker") problems.push(`${worker.name}: no Service, but not labelled a worker`);
      // Any ingress rule would admit someone: a worker's policies have none (the kubelet's probes come from the node).
      for (const p of policiesSelecting(net, worker, "Ingress"))
        if ((p.spec.ingress ?? []).length > 0) problems.push(`${worker.name}: ingress allowed by ${p.metadata.name}`);
      for (const other of apps) {
        for (const port of other.ports)
          if (connectionAllowed(net, worker, other, port)) problems.push(`${worker.name} may connect to ${other.name}:${port.containerPort}`);
      }
    }
    expect(problems).toEqual([]);
  });

  check(title("takes traffic from outside the namespace only on the gateway's HTTP port, from anywhere"), () => {
    const objects = rendering(name);
    const apps = appsOf(objects);
    const net = networkOf(objects);
    const gateways = apps.filter((a) => a.labels["app.kubernetes.io/component"] === "gateway");
    expect(gateways.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const p of net.policies) {
      for (const rule of (p.spec.ingress ?? []) as Obj[]) {
        const fromOutside =
          !rule.from || (rule.from as Obj[]).some((peer) => peerOutside(net, peer) || (isObj(peer.namespaceSelector) && !peer.podSelector));
        if (!fromOutside) continue;
        for (const app of apps.filter((a) => selects(p.spec.podSelector, a.labels))) {
          const open = app.ports.filter((port) => portListed(rule.ports, port));
          const gatewayHttp = gateways.includes(app) && open.every((port) => port.name === "http");
          if (!gatewayHttp)
            problems.push(`${p.metadata.name}: ${app.name} ports ${open.map((o) => o.containerPort).join(", ")} open to other namespaces`);
        }
      }
    }
    for (const gateway of gateways) {
      const http = gateway.ports.find((port) => port.name === "http");
      const openToAll = policiesSelecting(net, gateway, "Ingress").some((p) =>
        ((p.spec.ingress ?? []) as Obj[]).some((rule) => !rule.from && portListed(rule.ports, http ?? {})),
      );
      if (!http || !openToAll) problems.push(`${gateway.name}: its HTTP port is not open to every client`);
    }
    expect(problems).toEqual([]);
  });

  check(title("lets traffic leave the namespace only where an app's settings need it, on named ports"), () => {
    const objects = rendering(name);
    const apps = appsOf(objects);
    const net = networkOf(objects);
    const problems: string[] = [];
    for (const p of net.policies) {
      const leaving = ((p.spec.egress ?? []) as Obj[]).filter((rule) => !rule.to || (rule.to as Obj[]).some((peer) => peerOutside(net, peer)));
      if (leaving.length === 0) continue;
      for (const rule of leaving) {
        if (!rule.to) problems.push(`${p.metadata.name}: an egress rule without peers opens every destination`);
        if (!(rule.ports ?? []).length) problems.push(`${p.metadata.name}: an egress rule leaving the namespace opens every port`);
        for (const peer of (rule.to ?? []) as Obj[]) {
          const except: string[] = peer.ipBlock?.except ?? [];
          const missing = (NEVER_PUBLIC[peer.ipBlock?.cidr] ?? []).filter((range) => !except.includes(range));
          if (missing.length > 0) problems.push(`${p.metadata.name}: ${peer.ipBlock.cidr} does not leave out ${missing.join(", ")}`);
        }
      }
      const selected = apps.filter((a) => selects(p.spec.podSelector, a.labels)).map((a) => a.name);
      // Name resolution is every pod's need: the cluster DNS on port 53.
      const dnsOnly = leaving.every((rule) => (rule.ports ?? []).length > 0 && (rule.ports as Obj[]).every((port) => port.port === 53));
      if (dnsOnly) continue;
      const settings = String(p.metadata.annotations?.["study/egress-for"] ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (settings.length === 0) {
        problems.push(`${p.metadata.name}: leaves the namespace without a study/egress-for annotation naming the settings that need it`);
        continue;
      }
      const needing = apps.filter((a) => settings.some((s) => a.settings.has(s))).map((a) => a.name);
      if (selected.join() !== needing.join()) {
        problems.push(`${p.metadata.name}: selects [${selected.join(", ")}], but the apps with ${settings.join(" or ")} are [${needing.join(", ")}]`);
      }
      if (!readme.includes(`\`${p.metadata.name}\``)) problems.push(`${p.metadata.name}: not described in k8s/README.md`);
    }
    expect(problems).toEqual([]);
  });

  if (name !== "base") {
    check(title("runs released images from a registry, and sets every app's environment"), () => {
      const objects = rendering(name);
      const apps = appsOf(objects);
      const problems: string[] = [];
      for (const app of apps) {
        for (const c of [...initContainersOf(app.deployment), ...containersOf(app.deployment)]) {
          const image = String(c.image);
          const [registry] = image.split("/");
          const tag = /:([^/:@]+)$/.exec(image)?.[1];
          if (!/[.:]/.test(registry) || image.split("/").length < 2) problems.push(`${app.name}/${c.name}: ${image} names no registry`);
          if (!image.includes("@sha256:") && (!tag || tag === "latest")) problems.push(`${app.name}/${c.name}: ${image} has no fixed tag`);
        }
      }
      const collector = networkOf(objects).policies.find((p) => p.metadata.name === "egress-otel-collector");
      const collectorNamespace = collector?.spec.egress?.[0]?.to?.[0]?.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"];
      for (const config of ofKind(objects, "ConfigMap").filter((c) => c.metadata.labels?.["app.kubernetes.io/part-of"] === "study")) {
        const data: Obj = config.data ?? {};
        for (const setting of ["NODE_ENV", "LOG_LEVEL", "OTEL_TRACES_SAMPLER", "OTEL_EXPORTER_OTLP_ENDPOINT"]) {
          if (!data[setting]) problems.push(`${config.metadata.name}: ${setting} is not set`);
        }
        if (name === "prod" && data.NODE_ENV !== "production") problems.push(`${config.metadata.name}: NODE_ENV is ${data.NODE_ENV} in prod`);
        // Traces must go where the egress rule lets them: the collector's namespace.
        const host = /^https?:\/\/([^:/]+)/.exec(String(data.OTEL_EXPORTER_OTLP_ENDPOINT ?? ""))?.[1] ?? "";
        if (collectorNamespace && host.split(".")[1] !== collectorNamespace) {
          problems.push(
            `${config.metadata.name}: OTEL_EXPORTER_OTLP_ENDPOINT ${host} is not in ${collectorNamespace}, where egress-otel-collector leads`,
          );
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

// --- the generator's output for a service that does not exist yet -------------------------------------------------

describe("the base as `npm run deploy:generate` writes it for a new service with a worker, a call and a way out", () => {
  let objects: Obj[] = [];
  beforeAll(() => {
    const rendered = renderDeployment(WITH_REPORTS, root, {
      ...DEPLOYMENT,
      reports: { calls: [{ service: "courses", why: "a report's course" }], workers: { "reports-worker": { egress: ["openai"] } } },
    });
    objects = assembleBase((file) => rendered.get(path.join("k8s", "base", file)) ?? readBaseFile(file));
  });

  it("passes strict validation against the Kubernetes schemas, every object", () => {
    expect(objects.filter((o) => o.metadata?.name?.startsWith("reports")).map(key)).toEqual(
      expect.arrayContaining(["Deployment/reports", "Service/reports", "NetworkPolicy/reports", "Deployment/reports-worker"]),
    );
    expect(objects.flatMap((o) => validator.validate(o).map((p) => `${key(o)}${p}`))).toEqual([]);
  });

  it("lets exactly the calls its settings name through: the gateway's to it and its own to courses", () => {
    const apps = appsOf(objects);
    const net = networkOf(objects);
    const allowed = allowedEdges(net, apps).sort();
    expect(allowed).toEqual(requiredEdges(objects, apps, net));
    expect(allowed).toEqual(expect.arrayContaining([`gateway → reports:${REPORTS_PORT}`, "reports → courses:50051"]));
    expect(allowed.filter((e) => e.startsWith("reports-worker") || e.includes("→ reports-worker"))).toEqual([]);
  });

  it("lets its worker out through the policies every app gets and the one its egress names (OpenAI)", () => {
    const worker = appsOf(objects).find((app) => app.name === "reports-worker");
    const selecting = networkOf(objects)
      .policies.filter((p) => worker && selects(p.spec.podSelector, worker.labels))
      .map((p) => p.metadata.name);
    expect(selecting).toEqual(["default-deny", "egress-dns", "egress-postgresql", "egress-rabbitmq", "egress-otel-collector", "egress-openai"]);
  });
});
