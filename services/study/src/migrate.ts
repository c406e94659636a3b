import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { studyMigrations } from "./migrations";

runMain(() => runMigrations(studyMigrations));
