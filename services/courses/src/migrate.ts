import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { coursesMigrations } from "./migrations";

runMain(() => runMigrations(coursesMigrations));
