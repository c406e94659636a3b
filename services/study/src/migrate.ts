import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime";
import { studyService } from "./service";

runMain(() => runMigrations(studyService));
