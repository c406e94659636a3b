import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { billingService } from "./service";

runMain(() => startService(billingService));
