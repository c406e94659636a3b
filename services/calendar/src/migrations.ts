import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The calendar schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const calendarMigrations: ServiceMigrations = {
  name: "calendar",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
