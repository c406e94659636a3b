import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { mediaMigrations } from "./migrations";

runMain(() => runMigrations(mediaMigrations));
