export * from "./migrate";
export * from "./prisma";
export * from "./pg-client";
export * from "./prepared";
