import { migrate, type MigrationSource } from "@study/db";
import { PLATFORM_MIGRATIONS } from "@study/events";
import { createLogger, loadConfig, postgresUrl } from "@study/platform";
import { z } from "zod";

/** Where a service's schema comes from: its name (the migrations' scope) and its own migrations folder. */
export interface ServiceMigrations {
  name: string;
  /** The service's own migrations folder (Prisma's `prisma/migrations`). */
  migrationsDirectory: string;
}

/** The migration process's one setting. */
export const migrationConfigSchema = z.object({
  DATABASE_URL: postgresUrl(),
});

export function migrationSources(definition: ServiceMigrations): MigrationSource[] {
  return [PLATFORM_MIGRATIONS, { scope: definition.name, directory: definition.migrationsDirectory }];
}

/**
 * Entry point of `dist/migrate.js`: applies the platform and service migrations to DATABASE_URL. A module of its
 * own (`@study/runtime/migrate`) so that a migration process loads neither the service nor the runtime's servers
 * and telemetry: it runs before every start of the stack and as an init container.
 */
export async function runMigrations(definition: ServiceMigrations): Promise<void> {
  const { DATABASE_URL } = loadConfig(migrationConfigSchema);
  const logger = createLogger(`${definition.name}-migrate`);
  const applied = await migrate(DATABASE_URL, migrationSources(definition));
  logger.info({ applied }, applied.length ? "migrations applied" : "database is up to date");
}
