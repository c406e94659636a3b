import type { TransactionalClient } from "@study/db";
import { migrate, type MigrationSource } from "@study/db";
import { AmqpConnection, PLATFORM_MIGRATIONS, startOutboxRelay } from "@study/events";
import { startGrpcServer, type GrpcServiceRegistration } from "@study/grpc";
import {
  amqpUrl,
  baseConfigSchema,
  createLogger,
  Lifecycle,
  loadConfig,
  port,
  postgresUrl,
  type Logger,
} from "@study/platform";
import { z } from "zod";

/** Settings of every gRPC service. */
export const serviceConfigSchema = baseConfigSchema.extend({
  GRPC_PORT: port(50051),
  DATABASE_URL: postgresUrl(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  RABBITMQ_URL: amqpUrl(),
  EVENT_EXCHANGE: z.string().min(1).default("study.events"),
});
export type ServiceConfig = z.infer<typeof serviceConfigSchema>;

export interface ServiceContext<Db, C extends ServiceConfig> {
  config: C;
  logger: Logger;
  db: Db;
  amqp: AmqpConnection;
  lifecycle: Lifecycle;
}

export interface ServiceDefinition<Db extends TransactionalClient, C extends ServiceConfig> {
  name: string;
  configSchema?: z.ZodType<C>;
  /** The service's own migrations folder (Prisma's `prisma/migrations`). */
  migrationsDirectory: string;
  createDatabase(config: C): Db & { $disconnect(): Promise<void> };
  /** Builds adapters and use cases; returns the gRPC services to serve and starts consumers/workers. */
  compose(context: ServiceContext<Db, C>): Promise<GrpcServiceRegistration[]>;
}

export function migrationSources(definition: { name: string; migrationsDirectory: string }): MigrationSource[] {
  return [PLATFORM_MIGRATIONS, { scope: definition.name, directory: definition.migrationsDirectory }];
}

/** Entry point of `dist/migrate.js`: applies the platform and service migrations to DATABASE_URL. */
export async function runMigrations(definition: { name: string; migrationsDirectory: string }): Promise<void> {
  const { DATABASE_URL } = loadConfig(z.object({ DATABASE_URL: postgresUrl() }));
  const logger = createLogger(`${definition.name}-migrate`);
  const applied = await migrate(DATABASE_URL, migrationSources(definition));
  logger.info({ applied }, applied.length ? "migrations applied" : "database is up to date");
}

/**
 * Starts a service: database, broker connection (self-healing), outbox relay, the composed gRPC services
 * with health, and an orderly shutdown on SIGINT/SIGTERM.
 */
export async function startService<Db extends TransactionalClient, C extends ServiceConfig>(
  definition: ServiceDefinition<Db, C>,
  options: { env?: NodeJS.ProcessEnv; handleSignals?: boolean } = {},
): Promise<ServiceContext<Db, C> & { grpcPort: number }> {
  const config = loadConfig((definition.configSchema ?? serviceConfigSchema) as z.ZodType<C>, options.env);
  const logger = createLogger(definition.name, config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  if (options.handleSignals ?? true) lifecycle.listenForSignals();

  const db = definition.createDatabase(config);
  lifecycle.onStop("database", () => db.$disconnect());

  const amqp = new AmqpConnection(config.RABBITMQ_URL, logger, definition.name);
  lifecycle.onStop("rabbitmq", () => amqp.close());
  // Serving does not wait for the broker: the outbox holds events until it is back.
  await amqp.start(5_000);

  const relay = await startOutboxRelay({ db, databaseUrl: config.DATABASE_URL, amqp, exchange: config.EVENT_EXCHANGE, logger });
  lifecycle.onStop("outbox relay", () => relay.stop());

  const context: ServiceContext<Db, C> = { config, logger, db, amqp, lifecycle };
  const services = await definition.compose(context);
  const server = await startGrpcServer({ port: config.GRPC_PORT, services, logger });
  lifecycle.onStop("grpc server", () => server.shutdown());
  return { ...context, grpcPort: server.port };
}
