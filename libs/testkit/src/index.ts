export * from "./infrastructure";
export * from "./ports";
export * from "./postgres";
export * from "./rabbitmq";
export * from "./test-env";
export * from "./event-capture";
