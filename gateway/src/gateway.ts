import { join } from "node:path";
import { pgTransactionalClient } from "@study/db";
import { AmqpConnection, PLATFORM_MIGRATIONS, startOutboxRelay } from "@study/events";
import { startGrpcServer } from "@study/grpc";
import { createLogger, Lifecycle, loadConfig } from "@study/platform";
import { Pool } from "pg";
import { createApp } from "./app";
import { createServiceClients, serviceAddresses } from "./clients";
import { gatewayConfigSchema } from "./config";
import { answerClientErrors } from "./http/server";
import { createIdentity } from "./identity/identity";

export const GATEWAY_MIGRATIONS = [PLATFORM_MIGRATIONS, { scope: "gateway", directory: join(__dirname, "..", "migrations") }];

/** Composition root of the gateway: config → database → broker + outbox relay → auth → gRPC clients → gRPC server → HTTP. */
export async function startGateway(options: { env?: NodeJS.ProcessEnv; handleSignals?: boolean } = {}) {
  const config = loadConfig(gatewayConfigSchema, options.env);
  const logger = createLogger("gateway", config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  if (options.handleSignals ?? true) lifecycle.listenForSignals();

  const pool = new Pool({ connectionString: config.DATABASE_URL, max: 20 });
  lifecycle.onStop("database", () => pool.end());
  const db = pgTransactionalClient(pool);

  const amqp = new AmqpConnection(config.RABBITMQ_URL, logger, "gateway");
  lifecycle.onStop("rabbitmq", () => amqp.close());
  await amqp.start(5_000);
  const relay = await startOutboxRelay({ db, databaseUrl: config.DATABASE_URL, amqp, exchange: config.EVENT_EXCHANGE, logger });
  lifecycle.onStop("outbox relay", () => relay.stop());

  const clients = createServiceClients(config);
  lifecycle.onStop("grpc clients", () => Object.values(clients).forEach((client) => client.close()));

  const identity = createIdentity({ pool, db, config, logger });
  // Served before HTTP, so that a gateway answering HTTP also answers gRPC.
  const grpcServer = await startGrpcServer({ port: config.GRPC_PORT, services: [identity.grpcService], logger });
  lifecycle.onStop("grpc server", () => grpcServer.shutdown());
  const app = createApp({
    config,
    logger,
    db,
    identity,
    clients,
    serviceAddresses: serviceAddresses(config),
  });
  const server = await new Promise<import("node:http").Server>((resolve, reject) => {
    const listening = app.listen(config.PORT, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  answerClientErrors(server);
  server.keepAliveTimeout = 65_000;
  // Node cuts any request after 5 minutes by default; uploads have their own limits (UPLOAD_*_TIMEOUT_MS).
  server.requestTimeout = Math.max(300_000, config.UPLOAD_REQUEST_TIMEOUT_MS + 30_000);
  lifecycle.onStop("http server", () => new Promise((resolve) => server.close(() => resolve(undefined))));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  logger.info({ port }, "gateway listening");
  return { config, logger, lifecycle, port, grpcPort: grpcServer.port, app };
}
