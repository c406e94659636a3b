export * from "./config";
export * from "./errors";
export * from "./lifecycle";
export * from "./logger";
export * from "./trace-context";
export * from "./ids";
export * from "./internal-request";
export * from "./early-answer";
