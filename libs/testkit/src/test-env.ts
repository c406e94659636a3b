import { randomBytes } from "node:crypto";
import { migrate, type MigrationSource } from "@study/db";
import { Client } from "pg";

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run tests through jest (its global set-up starts PostgreSQL and RabbitMQ)`);
  return value;
}

/** A short unique suffix, so parallel test files never share a database, exchange or queue. */
export const uniqueSuffix = () => randomBytes(4).toString("hex");

export const testRabbitMqUrl = () => required("STUDY_TEST_RABBITMQ_URL");

/** A fresh database for one test file, with the given migrations applied. */
export async function createTestDatabase(prefix: string, sources: MigrationSource[] = []): Promise<string> {
  const adminUrl = required("STUDY_TEST_POSTGRES_URL");
  const name = `${prefix.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${uniqueSuffix()}`;
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (sources.length > 0) await migrate(url.toString(), sources);
  return url.toString();
}

/** Polls until `probe` returns a value that is not undefined/false. */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${(lastError as Error).message}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
