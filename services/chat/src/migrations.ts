import { join } from "node:path";
import type { ServiceMigrations } from "@study/runtime/migrate";

/** The chat schema: read by `migrate.ts` without loading the service, and by the service definition. */
export const chatMigrations: ServiceMigrations = {
  name: "chat",
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
};
