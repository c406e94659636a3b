import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { notificationsMigrations } from "./migrations";

runMain(() => runMigrations(notificationsMigrations));
