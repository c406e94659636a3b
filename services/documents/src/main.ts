import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { documentsService } from "./service";

runMain(() => startService(documentsService));
