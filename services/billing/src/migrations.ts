import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The billing schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const billingMigrations: ServiceMigrations = {
  name: "billing",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
