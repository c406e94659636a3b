import { runMain } from "@study/platform";
import { runMigrations } from "@study/runtime";
import { mediaService } from "./service";

runMain(() => runMigrations(mediaService));
