import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The documents schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const documentsMigrations: ServiceMigrations = {
  name: "documents",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
