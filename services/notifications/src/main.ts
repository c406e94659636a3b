import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { notificationsService } from "./service";

runMain(() => startService(notificationsService));
