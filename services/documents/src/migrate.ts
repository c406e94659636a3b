import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { documentsMigrations } from "./migrations";

runMain(() => runMigrations(documentsMigrations));
