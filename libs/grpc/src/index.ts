export * from "./client";
export * from "./course-directory";
export * from "./errors";
export * from "./internal-auth";
export * from "./message-size";
export * from "./server";
export * from "./page-info";
export * from "./unary-handlers";
export { traceMetadata } from "./tracing";
