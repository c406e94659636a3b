import { join } from "node:path";
import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";

// The gateway's own schema (auth tables) plus the platform's outbox and inbox, like every service.
runMain(() => runMigrations({ name: "gateway", migrationsDirectory: join(__dirname, "..", "migrations") }));
