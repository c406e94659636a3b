import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { searchMigrations } from "./migrations";

runMain(() => runMigrations(searchMigrations));
