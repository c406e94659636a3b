/**
 * Shared body of every service's prisma.config.ts. Prisma's native engines cannot be downloaded here, so the
 * CLI runs with the JS engine and the pg driver adapter. The adapter is built from discrete fields: a
 * connection string breaks the shadow database of `migrate dev`.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

export function servicePrismaConfig(schema: string) {
  return defineConfig({
    experimental: { adapter: true },
    engine: "js",
    schema,
    async adapter() {
      const url = new URL(process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres");
      return new PrismaPg({
        host: url.hostname,
        port: Number(url.port || 5432),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: url.pathname.slice(1),
      });
    },
  });
}
