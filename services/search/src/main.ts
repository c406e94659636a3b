import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { searchService } from "./service";

runMain(() => startService(searchService));
