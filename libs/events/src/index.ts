export * from "./connection";
export * from "./consumer";
export * from "./dead-letters";
export * from "./envelope";
export * from "./outbox";
export * from "./publisher";

import { join } from "node:path";
/** Folder of the platform migrations (outbox, inbox) every event-using database applies first. */
export const PLATFORM_MIGRATIONS = { scope: "platform", directory: join(__dirname, "..", "migrations") };
