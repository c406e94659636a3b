/**
 * The catalogue of the services: the one list from which the local stack (`npm start`), the gateway's
 * clients, configuration and health list, and the test kit derive. Pure data, no I/O, so that production
 * code (the gateway) may import it. docker-compose.yml's app blocks and k8s/base/<app>/ are generated from it
 * (`npm run deploy:generate`, with libs/testkit/src/deployment/description.ts for what only a deployment needs).
 */

/** Another process of a service, started with the service's settings (e.g. media's import worker). */
export interface ExtraProcess {
  name: string;
  /** Entry script, relative to the service's directory. */
  script: string;
  /** Setting that gives the process's `GET /health/live` port (served by libs/runtime). */
  healthPortVariable: string;
}

/** A plain HTTP port a service serves beside gRPC, and the gateway setting that receives its URL. */
export interface ExtraHttpPort {
  portVariable: string;
  defaultPort: number;
  gatewayUrlVariable: string;
}

export interface CatalogueEntry {
  /** Process, database, compose service and k8s Deployment name. */
  name: string;
  /** Workspace folder holding `dist/main.js` and `dist/migrate.js`. */
  directory: string;
  /** Setting through which the gateway (and other services) find this service's gRPC API (`host:port`). */
  grpcAddressVariable: string;
  /** The service's gRPC port in compose and k8s. */
  grpcPort: number;
  extraProcesses?: readonly ExtraProcess[];
  http?: readonly ExtraHttpPort[];
}

export type Catalogue = readonly CatalogueEntry[];

/** Every service, in start order. A new service is one entry here (see docs/development.md, "Adding a service"). */
export const CATALOGUE = [
  { name: "courses", directory: "services/courses", grpcAddressVariable: "COURSES_GRPC_ADDRESS", grpcPort: 50051 },
  { name: "notifications", directory: "services/notifications", grpcAddressVariable: "NOTIFICATIONS_GRPC_ADDRESS", grpcPort: 50052 },
  {
    name: "media",
    directory: "services/media",
    grpcAddressVariable: "MEDIA_GRPC_ADDRESS",
    grpcPort: 50053,
    extraProcesses: [{ name: "media-worker", script: "dist/worker.js", healthPortVariable: "MEDIA_WORKER_HEALTH_PORT" }],
    http: [{ portVariable: "MEDIA_HTTP_PORT", defaultPort: 50063, gatewayUrlVariable: "MEDIA_UPLOAD_URL" }],
  },
  { name: "study", directory: "services/study", grpcAddressVariable: "STUDY_GRPC_ADDRESS", grpcPort: 50054 },
  { name: "search", directory: "services/search", grpcAddressVariable: "SEARCH_GRPC_ADDRESS", grpcPort: 50055 },
  { name: "calendar", directory: "services/calendar", grpcAddressVariable: "CALENDAR_GRPC_ADDRESS", grpcPort: 50056 },
  {
    name: "documents",
    directory: "services/documents",
    grpcAddressVariable: "DOCUMENTS_GRPC_ADDRESS",
    grpcPort: 50057,
    extraProcesses: [{ name: "documents-worker", script: "dist/worker.js", healthPortVariable: "DOCUMENTS_WORKER_HEALTH_PORT" }],
    http: [{ portVariable: "DOCUMENTS_HTTP_PORT", defaultPort: 50067, gatewayUrlVariable: "DOCUMENTS_UPLOAD_URL" }],
  },
  { name: "billing", directory: "services/billing", grpcAddressVariable: "BILLING_GRPC_ADDRESS", grpcPort: 50058 },
  { name: "chat", directory: "services/chat", grpcAddressVariable: "CHAT_GRPC_ADDRESS", grpcPort: 50059 },
] as const satisfies Catalogue;

export type ServiceName = (typeof CATALOGUE)[number]["name"];

/** Every process of the system (services, their extra processes, the gateway): each has its own internal-auth key. */
export function processNamesOf(catalogue: Catalogue = CATALOGUE): string[] {
  return [...catalogue.flatMap((entry) => [entry.name, ...(entry.extraProcesses ?? []).map((extra) => extra.name)]), GATEWAY_APP.name];
}

/** The gateway: not a catalogue entry (it is the one that reads the catalogue), but deployed like one. */
export const GATEWAY_APP = {
  name: "gateway",
  directory: "gateway",
  httpPort: 3000,
  grpcPort: 50050,
  grpcAddressVariable: "IDENTITY_GRPC_ADDRESS",
} as const;
