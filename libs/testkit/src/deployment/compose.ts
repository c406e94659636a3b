/** The generated regions of docker-compose.yml, written from the planned apps. */
import type { Setting } from "./description";
import { internalAuthKeyVariable, WORKER_HEALTH_PORT, type PlannedApp, type PlannedWorker } from "./plan";
import { comment, flowList, indented, scalar } from "./yaml";

/** `# --- title ---…` as the file draws its section lines (97 columns wide, plus the indentation). */
const section = (title: string, indent: number) => {
  const head = `${" ".repeat(indent)}# --- ${title} `;
  return head + "-".repeat(Math.max(3, 97 + indent - head.length));
};

const environmentLines = (settings: readonly Setting[]) =>
  settings.flatMap((setting) => [...comment(setting.comment, 2), `  ${setting.name}: ${scalar(setting.value)}`]);

const required = (variable: string, why: string) => `\${${variable}:?set ${variable} (${why})}`;

/** `x-<app>-build` and `x-<app>-environment` of every app: the anchors its compose services share. */
export function composeAnchors(apps: readonly PlannedApp[]): string[] {
  const services = apps.filter((app) => app.kind === "service");
  return apps.flatMap((app, index) => {
    const gateway = app.kind === "gateway";
    const settings: Setting[] = [
      { name: "INTERNAL_AUTH_KEY", value: required(internalAuthKeyVariable(app.name), "npm run -s internal-auth-keys >> .env") },
      ...(gateway ? [{ name: "PORT", value: "3000" }] : []),
      { name: "GRPC_PORT", value: String(app.grpcPort) },
      { name: "DATABASE_URL", value: `postgresql://study:\${POSTGRES_PASSWORD}@postgres:5432/${app.name}` },
      ...app.http.map((http, at) => ({
        name: http.portVariable,
        value: String(http.defaultPort),
        comment: at === 0 ? app.deployment.httpComment : undefined,
      })),
      ...app.calls.map((call, at) => ({
        name: call.variable,
        value: `${call.service}:${call.port}`,
        comment: at === 0 && !gateway ? app.deployment.callsComment : undefined,
      })),
      ...(gateway
        ? services.flatMap((service) =>
            service.http.map((http) => ({ name: http.gatewayUrlVariable, value: `http://${service.name}:${http.defaultPort}` })),
          )
        : []),
      ...(app.deployment.compose?.environment ?? []),
    ];
    return [
      ...(index > 0 ? [""] : []),
      section(app.name, 0),
      `x-${app.name}-build: &${app.name}-build`,
      "  context: .",
      "  dockerfile: Dockerfile",
      "  args:",
      `    APP: ${app.directory}`,
      "",
      `x-${app.name}-environment: &${app.name}-environment`,
      "  <<: *app-environment",
      ...environmentLines(settings),
    ];
  });
}

/** The postgres service's STUDY_DATABASES: one database per app. */
export function composeDatabases(apps: readonly PlannedApp[]): string[] {
  return [`      STUDY_DATABASES: ${apps.map((app) => app.name).join(" ")}`];
}

const dependsOn = (conditions: readonly (readonly [string, string])[]) => [
  "depends_on:",
  ...conditions.flatMap(([service, condition]) => [`  ${service}:`, `    condition: ${condition}`]),
];

function migration(app: PlannedApp): string[] {
  return [
    `${app.name}-migrate:`,
    ...indented(
      [
        `build: *${app.name}-build`,
        `image: study/${app.name}:\${IMAGE_TAG:-local}`,
        `command: ${flowList(["node", `${app.directory}/dist/migrate.js`])}`,
        `environment: *${app.name}-environment`,
        "<<: *app-hardening",
        ...dependsOn([["postgres", "service_healthy"]]),
        'restart: "no"',
      ],
      2,
    ),
  ];
}

/** What a service or worker waits for: its migration, RabbitMQ, what its description names, the trace collector. */
const serviceDependencies = (app: PlannedApp) =>
  dependsOn([
    [`${app.name}-migrate`, "service_completed_successfully"],
    ["rabbitmq", "service_healthy"],
    ...(app.deployment.compose?.waitsFor ?? []).map((service) => [service, "service_healthy"] as const),
    ["jaeger", "service_started"],
  ]);

const volumes = (app: PlannedApp) => {
  const mounts = app.deployment.compose?.volumes ?? [];
  return mounts.length === 0 ? [] : ["volumes:", ...mounts.map((mount) => `  - ${mount}`)];
};

function grpcService(app: PlannedApp): string[] {
  return [
    `${app.name}:`,
    ...indented(
      [
        `build: *${app.name}-build`,
        `image: study/${app.name}:\${IMAGE_TAG:-local}`,
        `command: ${flowList(["node", `${app.directory}/dist/main.js`])}`,
        `environment: *${app.name}-environment`,
        "<<: *app-hardening",
        ...volumes(app),
        ...serviceDependencies(app),
        "healthcheck: *grpc-healthcheck",
        "restart: unless-stopped",
      ],
      2,
    ),
  ];
}

function worker(app: PlannedApp, process: PlannedWorker): string[] {
  return [
    ...comment(process.deployment.composeComment, 0),
    `${process.name}:`,
    ...indented(
      [
        `build: *${app.name}-build`,
        `image: study/${app.name}:\${IMAGE_TAG:-local}`,
        `command: ${flowList(["node", `${app.directory}/${process.script}`])}`,
        "environment:",
        `  <<: *${app.name}-environment`,
        `  INTERNAL_AUTH_KEY: ${required(internalAuthKeyVariable(process.name), "npm run -s internal-auth-keys >> .env")}`,
        `  ${process.healthPortVariable}: "${WORKER_HEALTH_PORT}"`,
        "<<: *app-hardening",
        ...volumes(app),
        ...serviceDependencies(app),
        "healthcheck:",
        `  test: ["CMD", "node", "-e", "fetch('http://127.0.0.1:${WORKER_HEALTH_PORT}/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]`,
        "  interval: 10s",
        "  timeout: 5s",
        "  retries: 5",
        "  start_period: 10s",
        "restart: unless-stopped",
      ],
      2,
    ),
  ];
}

function gatewayService(gateway: PlannedApp, services: readonly PlannedApp[]): string[] {
  return [
    "gateway:",
    ...indented(
      [
        "build: *gateway-build",
        "image: study/gateway:${IMAGE_TAG:-local}",
        `command: ${flowList(["node", `${gateway.directory}/dist/main.js`])}`,
        "environment: *gateway-environment",
        "<<: *app-hardening",
        "ports:",
        '  - "${GATEWAY_PORT:-3000}:3000"',
        ...dependsOn([
          ["gateway-migrate", "service_completed_successfully"],
          ...services.map((service) => [service.name, "service_healthy"] as const),
          ["rabbitmq", "service_healthy"],
          ["jaeger", "service_started"],
        ]),
        "healthcheck:",
        "  # GET /health: 200 only when the gateway and every service it calls are healthy.",
        "  test:",
        "    - CMD",
        "    - node",
        "    - -e",
        "    - >-",
        "      fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health', { signal: AbortSignal.timeout(4000) })",
        "      .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));",
        "  interval: 10s",
        "  timeout: 5s",
        "  retries: 5",
        "  start_period: 20s",
        "restart: unless-stopped",
      ],
      2,
    ),
  ];
}

/** The apps' compose services: every migration, the gRPC services with their workers, the gateway. */
export function composeServices(apps: readonly PlannedApp[]): string[] {
  const services = apps.filter((app) => app.kind === "service");
  const gateways = apps.filter((app) => app.kind === "gateway");
  const blocks = (list: string[][]) => list.flatMap((block, index) => [...(index > 0 ? [""] : []), ...block]);
  return indented(
    [
      section("migrations (one-shot)", 2).trimStart(),
      ...blocks(apps.map(migration)),
      "",
      section("gRPC services", 2).trimStart(),
      ...blocks(services.flatMap((app) => [grpcService(app), ...app.workers.map((process) => worker(app, process))])),
      "",
      section("HTTP gateway", 2).trimStart(),
      ...blocks(gateways.map((gateway) => gatewayService(gateway, services))),
    ],
    2,
  );
}

/** The named volumes the apps own (uploaded files shared by a service and its workers). */
export function composeVolumes(apps: readonly PlannedApp[]): string[] {
  return apps.flatMap((app) => (app.deployment.compose?.ownVolumes ?? []).flatMap((volume) => [...comment(volume.comment, 2), `  ${volume.name}:`]));
}
