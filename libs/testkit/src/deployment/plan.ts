/** The catalogue and the deployment description joined into what the compose and k8s writers need per app. */
import { GATEWAY_APP, type Catalogue, type ExtraHttpPort } from "@study/platform/catalogue";
import { GATEWAY_DEPLOYMENT, type AppDeployment, type DeploymentDescription, type WorkerDeployment } from "./description";

/** A call resolved to the callee's address setting and gRPC port. */
export interface ResolvedCall {
  /** The callee: a catalogue name or the gateway. */
  service: string;
  why: string;
  variable: string;
  port: number;
}

/** A call as the callee sees it. */
export interface IncomingCall {
  /** The caller. */
  service: string;
  why: string;
  variable: string;
}

export interface PlannedWorker {
  name: string;
  script: string;
  healthPortVariable: string;
  deployment: WorkerDeployment;
}

export interface PlannedApp {
  name: string;
  directory: string;
  kind: "gateway" | "service";
  grpcPort: number;
  http: readonly ExtraHttpPort[];
  calls: readonly ResolvedCall[];
  callers: readonly IncomingCall[];
  deployment: AppDeployment;
  workers: readonly PlannedWorker[];
}

/** The gateway first, then the catalogue's services in its order. */
export function planApps(catalogue: Catalogue, description: DeploymentDescription): PlannedApp[] {
  const addresses = new Map<string, { variable: string; port: number }>([
    [GATEWAY_APP.name, { variable: GATEWAY_APP.grpcAddressVariable, port: GATEWAY_APP.grpcPort }],
    ...catalogue.map((entry) => [entry.name, { variable: entry.grpcAddressVariable, port: entry.grpcPort }] as const),
  ]);
  const resolve = (caller: string, service: string, why: string): ResolvedCall => {
    const address = addresses.get(service);
    if (!address) throw new Error(`deployment description: ${caller} calls ${service}, which is neither a catalogue service nor the gateway`);
    return { service, why, ...address };
  };

  const apps: PlannedApp[] = [
    {
      name: GATEWAY_APP.name,
      directory: GATEWAY_APP.directory,
      kind: "gateway",
      grpcPort: GATEWAY_APP.grpcPort,
      http: [],
      // The gateway calls every service; its NetworkPolicy and settings say so without a reason each.
      calls: catalogue.map((entry) => resolve(GATEWAY_APP.name, entry.name, "the API")),
      callers: [],
      deployment: GATEWAY_DEPLOYMENT,
      workers: [],
    },
    ...catalogue.map((entry): PlannedApp => {
      const deployment = description[entry.name] ?? {};
      const workers = (entry.extraProcesses ?? []).map((extra) => ({ ...extra, deployment: deployment.workers?.[extra.name] ?? {} }));
      const unknownWorkers = Object.keys(deployment.workers ?? {}).filter((name) => !workers.some((worker) => worker.name === name));
      if (unknownWorkers.length > 0) {
        throw new Error(`deployment description: ${entry.name} describes ${unknownWorkers.join(", ")}, not an extra process of its catalogue entry`);
      }
      return {
        name: entry.name,
        directory: entry.directory,
        kind: "service",
        grpcPort: entry.grpcPort,
        http: entry.http ?? [],
        calls: (deployment.calls ?? []).map((call) => resolve(entry.name, call.service, call.why)),
        callers: [],
        deployment,
        workers,
      };
    }),
  ];
  // Services' calls seen from the callee (the gateway's calls are its egress only: every service takes them).
  return apps.map((app) => ({
    ...app,
    callers: apps
      .filter((caller) => caller.kind === "service")
      .flatMap((caller) =>
        caller.calls.filter((call) => call.service === app.name).map((call) => ({ service: caller.name, why: call.why, variable: call.variable })),
      ),
  }));
}

/** `study/<app>:0.1.0`: the base's image name; the overlays set the registry and the tag. */
export const imageOf = (app: PlannedApp) => `study/${app.name}:0.1.0`;

/** The name of a process's internal-auth key variable, as `npm run -s internal-auth-keys` prints it. */
export const internalAuthKeyVariable = (process: string) => `${process.toUpperCase().replaceAll("-", "_")}_INTERNAL_AUTH_KEY`;

/** The port of a worker's `GET /health/live`. */
export const WORKER_HEALTH_PORT = 8081;
