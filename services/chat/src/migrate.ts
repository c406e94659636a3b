import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime/migrate";
import { chatMigrations } from "./migrations";

runMain(() => runMigrations(chatMigrations));
