import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { calendarService } from "./service";

runMain(() => startService(calendarService));
