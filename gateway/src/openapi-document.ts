import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { createLogger, loadConfig, runMain } from "@study/platform";
import { CATALOGUE } from "@study/platform/catalogue";
import { Pool } from "pg";
import { pgTransactionalClient } from "@study/db";
import { API_INFO, apiRegistry } from "./app";
import { createServiceClients, serviceAddresses } from "./clients";
import { gatewayConfigSchema } from "./config";
import { createIdentity } from "./identity/identity";

/**
 * The public REST API's OpenAPI document as the gateway serves it at /openapi.json (Swagger off), built from the
 * same route definitions without starting anything: nothing here connects (the pool and gRPC clients are lazy and
 * closed unused). The SDK (clients/sdk) is generated from the committed copy; gateway/test/unit/openapi-document
 * fails when the two disagree.
 */
export function openApiDocument(): object {
  const settings: Record<string, string> = {
    NODE_ENV: "test",
    DATABASE_URL: "postgresql://document@127.0.0.1:1/document",
    RABBITMQ_URL: "amqp://127.0.0.1:1",
    AUTH_SECRET: "x".repeat(32),
    BASE_URL: "http://localhost:3000",
    CLIENT_URL: "http://localhost:3000/app",
    ...Object.fromEntries(CATALOGUE.map((entry) => [entry.grpcAddressVariable, "127.0.0.1:1"])),
  };
  const config = loadConfig(gatewayConfigSchema, settings);
  const logger = createLogger("openapi-document", "silent");
  const pool = new Pool({ connectionString: config.DATABASE_URL });
  const db = pgTransactionalClient(pool);
  const clients = createServiceClients(config);
  try {
    const identity = createIdentity({ pool, db, config, logger });
    const registry = apiRegistry({ config, logger, db, identity, clients, serviceAddresses: serviceAddresses(config, CATALOGUE) });
    return registry.openApiDocument(API_INFO);
  } finally {
    Object.values(clients).forEach((client) => client.close());
    void pool.end();
  }
}

/** The committed copy the SDK is generated from. */
export const COMMITTED_DOCUMENT = resolve(__dirname, "../../clients/sdk/openapi.json");

export const documentText = (document: object) => `${JSON.stringify(document, null, 2)}\n`;

if (require.main === module) {
  runMain(async () => {
    writeFileSync(COMMITTED_DOCUMENT, documentText(openApiDocument()));
    process.stdout.write(`openapi: wrote ${COMMITTED_DOCUMENT}\n`);
  });
}
