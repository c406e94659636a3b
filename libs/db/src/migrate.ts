import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";

export interface MigrationSource {
  /** Namespace of the migrations, so a platform migration never clashes with a service's. */
  scope: string;
  /** A folder holding either `<name>.sql` files or Prisma's `<name>/migration.sql` folders. */
  directory: string;
}

export interface Migration {
  id: string;
  sql: string;
  checksum: string;
}

export function readMigrations(source: MigrationSource): Migration[] {
  if (!existsSync(source.directory)) return [];
  return readdirSync(source.directory)
    .sort()
    .flatMap((entry) => {
      const path = join(source.directory, entry);
      const file = statSync(path).isDirectory() ? join(path, "migration.sql") : path;
      if (!file.endsWith(".sql") || !existsSync(file)) return [];
      const sql = readFileSync(file, "utf8");
      const name = entry.replace(/\.sql$/, "");
      return [{ id: `${source.scope}/${name}`, sql, checksum: createHash("sha256").update(sql).digest("hex") }];
    });
}

/**
 * Applies committed migration SQL in order, each in its own transaction, under an advisory lock so that
 * concurrent starters (several replicas, a k8s init container) apply each migration once. A changed
 * migration that was already applied is an error rather than a silent drift.
 */
export async function migrate(databaseUrl: string, sources: MigrationSource[]): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock(727274)");
    await client.query(
      `CREATE TABLE IF NOT EXISTS _schema_migrations (
         id text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ id: string; checksum: string }>("SELECT id, checksum FROM _schema_migrations");
    const known = new Map(rows.map((r) => [r.id, r.checksum]));
    for (const migration of sources.flatMap(readMigrations)) {
      const checksum = known.get(migration.id);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) throw new Error(`Migration ${migration.id} was changed after it was applied`);
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query("INSERT INTO _schema_migrations (id, checksum) VALUES ($1, $2)", [migration.id, migration.checksum]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${migration.id} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(migration.id);
    }
  } finally {
    // eslint-disable-next-line no-restricted-syntax -- ending the session on the next line releases the lock anyway; the migration's own outcome is what counts
    await client.query("SELECT pg_advisory_unlock(727274)").catch(() => undefined);
    await client.end();
  }
  return applied;
}

/**
 * Creates the database named in the URL if it does not exist (connecting to the `postgres` database), empty or as a
 * copy of the database `options.template` (which nobody may be connected to while it is copied).
 */
export async function ensureDatabase(databaseUrl: string, options: { template?: string } = {}): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = "/postgres";
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
    const template = options.template === undefined ? "" : ` TEMPLATE ${quote(options.template)}`;
    if (!rowCount) await client.query(`CREATE DATABASE ${quote(name)}${template}`);
  } catch (error) {
    // Two starters racing to create the same database: the loser sees unique_violation / duplicate_database.
    const code = (error as { code?: string }).code;
    if (code !== "42P04" && code !== "23505") throw error;
  } finally {
    await client.end();
  }
}
