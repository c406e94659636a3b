import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The notifications schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const notificationsMigrations: ServiceMigrations = {
  name: "notifications",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
