import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The search schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const searchMigrations: ServiceMigrations = {
  name: "search",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
