export * from "./client";
export * from "./config";
export * from "./errors";
export * from "./text/sentences";
export * from "./text/words";
export * from "./text/stop-words";
export * from "./text/term-frequency";
