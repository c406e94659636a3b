import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The media schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const mediaMigrations: ServiceMigrations = {
  name: "media",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
