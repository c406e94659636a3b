export { createStudyClient, data, type StudyClient, type StudyClientOptions } from "./client.js";
export { StudyApiError, type ErrorEnvelope, type FieldProblem } from "./errors.js";
export { eventsOf, type ServerEvent } from "./events.js";
export type { UploadOptions, UploadProgress } from "./upload.js";
export type { components, operations, paths } from "./generated/api.js";

import type { components } from "./generated/api.js";
/** The API's named schemas: `Schema<"Course">`, `Schema<"Flashcard">`, … */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];
