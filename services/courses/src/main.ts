import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { coursesService } from "./service";

runMain(() => startService(coursesService));
