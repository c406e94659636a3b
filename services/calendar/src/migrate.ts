import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { calendarMigrations } from "./migrations";

runMain(() => runMigrations(calendarMigrations));
