import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The courses schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const coursesMigrations: ServiceMigrations = {
  name: "courses",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
