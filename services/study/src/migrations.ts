import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The study schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const studyMigrations: ServiceMigrations = {
  name: "study",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
