import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime";
import { coursesService } from "./service";

runMain(() => runMigrations(coursesService));
