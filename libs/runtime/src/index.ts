import type { TransactionalClient } from "@study/db";
import { migrate, type MigrationSource } from "@study/db";
import { PLATFORM_MIGRATIONS } from "@study/events";
import type { GrpcServiceRegistration } from "@study/grpc";
import { createLogger, loadConfig, postgresUrl } from "@study/platform";
import { z } from "zod";
import {
  serviceConfigSchema,
  startProcess,
  type Database,
  type ProcessContext,
  type RunningProcess,
  type ServiceConfig,
  type StartOptions,
} from "./start-process";

export * from "./start-process";

export type ServiceContext<Db, C extends ServiceConfig> = ProcessContext<Db, C>;

/** A gRPC service as its `service.ts` declares it (the `service` kind of `startProcess`, plus its migrations). */
export interface ServiceDefinition<Db extends TransactionalClient, C extends ServiceConfig> {
  name: string;
  configSchema?: z.ZodType<C>;
  /** The service's own migrations folder (Prisma's `prisma/migrations`). */
  migrationsDirectory: string;
  createDatabase(config: C): Database<Db>;
  /** Builds adapters and use cases; returns the gRPC services to serve and starts consumers. */
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

/** Starts a gRPC service (`startProcess` of kind `service`): what every `services/<name>/src/main.ts` calls. */
export function startService<Db extends TransactionalClient, C extends ServiceConfig>(
  definition: ServiceDefinition<Db, C>,
  options: StartOptions = {},
): Promise<RunningProcess<Db, C> & { grpcPort: number }> {
  return startProcess<Db, C>(
    {
      kind: "service",
      name: definition.name,
      configSchema: (definition.configSchema ?? serviceConfigSchema) as z.ZodType<C>,
      createDatabase: (config) => definition.createDatabase(config),
      compose: (context) => definition.compose(context),
    },
    options,
  );
}
