import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime";
import { notificationsService } from "./service";

runMain(() => runMigrations(notificationsService));
