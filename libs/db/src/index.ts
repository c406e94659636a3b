export * from "./migrate";
export * from "./prisma";
