import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { studyService } from "./service";

runMain(() => startService(studyService));
