import "./instrumentation";
import { runMain } from "@study/platform";
import { startService } from "@study/runtime";
import { chatService } from "./service";

runMain(() => startService(chatService));
