import "./instrumentation";
import { runMain } from "@study/platform";
import { startGateway } from "./gateway";

runMain(() => startGateway());
