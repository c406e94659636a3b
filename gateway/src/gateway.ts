import { pgTransactionalClient } from "@study/db";
import { CATALOGUE, type Catalogue } from "@study/platform/catalogue";
import { startProcess, type StartOptions } from "@study/runtime";
import type { Pool } from "pg";
import { createApp } from "./app";
import { createServiceClients, serviceAddresses } from "./clients";
import { gatewayConfigSchema, grpcAddressSettings, type GatewayConfig } from "./config";
import { answerClientErrors, matchedRoute } from "./http/server";
import { createIdentity } from "./identity/identity";

/**
 * The gateway's database: plain pg over the process's pool (its tables belong to its auth library, which takes
 * the pool itself); the runtime ends the pool.
 */
function gatewayDatabase(_config: GatewayConfig, pool: Pool) {
  return { ...pgTransactionalClient(pool), $disconnect: async () => undefined };
}

export interface GatewayOptions extends StartOptions {
  /** The services the gateway calls and reports in GET /health (default: the catalogue in libs/platform). */
  catalogue?: Catalogue;
}

/**
 * Starts the gateway through the shared runtime sequence (config → logger → telemetry → database → broker →
 * outbox relay → servers → shutdown); what it supplies is its composition: identity, gRPC clients, the HTTP app.
 */
export async function startGateway(options: GatewayOptions = {}) {
  const catalogue = options.catalogue ?? CATALOGUE;
  // The real catalogue's address settings are in the schema already; another catalogue adds its own.
  const configSchema = gatewayConfigSchema.extend(grpcAddressSettings(catalogue));
  const running = await startProcess(
    {
      kind: "gateway",
      name: "gateway",
      configSchema,
      createDatabase: gatewayDatabase,
      async compose({ config, logger, db, pool, lifecycle }) {
        const clients = createServiceClients(config);
        lifecycle.onStop("grpc clients", () => Object.values(clients).forEach((client) => client.close()));
        const identity = createIdentity({ pool, db, config, logger });
        const app = createApp({ config, logger, db, identity, clients, serviceAddresses: serviceAddresses(config, catalogue) });
        return {
          grpc: [identity.grpcService],
          http: app,
          httpRoute: matchedRoute,
          configureHttp(server) {
            answerClientErrors(server);
            server.keepAliveTimeout = 65_000;
            // Node cuts any request after 5 minutes by default; uploads have their own limits (UPLOAD_*_TIMEOUT_MS).
            server.requestTimeout = Math.max(300_000, config.UPLOAD_REQUEST_TIMEOUT_MS + 30_000);
          },
        };
      },
    },
    options,
  );
  return { ...running, port: running.httpPort };
}
