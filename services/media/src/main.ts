import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { mediaService } from "./service";

runMain(() => startService(mediaService));
