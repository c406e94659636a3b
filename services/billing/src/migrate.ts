import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { billingMigrations } from "./migrations";

runMain(() => runMigrations(billingMigrations));
