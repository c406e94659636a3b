import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureDatabase, migrate, readMigrations } from "@study/db";
import { PLATFORM_MIGRATIONS } from "@study/events";
import { createTestDatabase, uniqueSuffix } from "@study/testkit";
import { Client } from "pg";

async function query<T extends Record<string, unknown>>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

const appliedIds = async (url: string) =>
  (await query<{ id: string }>(url, "SELECT id FROM _schema_migrations ORDER BY applied_at, id")).map((r) => r.id);

const tableExists = async (url: string, table: string) =>
  (await query<{ found: string | null }>(url, "SELECT to_regclass($1)::text AS found", [table]))[0].found !== null;

/** A migrations folder for one test; `add` writes `<name>.sql` or (folder: true) Prisma's `<name>/migration.sql`. */
function migrationsFolder(root: string) {
  const directory = mkdtempSync(join(root, "migrations-"));
  return {
    directory,
    add(name: string, sql: string, folder = false) {
      if (folder) {
        mkdirSync(join(directory, name), { recursive: true });
        writeFileSync(join(directory, name, "migration.sql"), sql);
      } else {
        writeFileSync(join(directory, `${name}.sql`), sql);
      }
    },
  };
}

describe("migrate", () => {
  let root: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "db-migrate-test-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("reads .sql files and Prisma-style folders in name order, ignoring everything else", () => {
    const folder = migrationsFolder(root);
    folder.add("0002_second", "SELECT 2;", true);
    folder.add("0001_first", "SELECT 1;");
    folder.add("0003_third", "SELECT 3;");
    writeFileSync(join(folder.directory, "README.md"), "not a migration");
    writeFileSync(join(folder.directory, "migration_lock.toml"), 'provider = "postgresql"');
    mkdirSync(join(folder.directory, "0004_empty_folder"));

    const migrations = readMigrations({ scope: "app", directory: folder.directory });
    expect(migrations.map((m) => m.id)).toEqual(["app/0001_first", "app/0002_second", "app/0003_third"]);
    expect(migrations[1].sql).toBe("SELECT 2;");
    expect(migrations[0].checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(migrations.map((m) => m.checksum)).size).toBe(3);
    expect(readMigrations({ scope: "app", directory: join(root, "does-not-exist") })).toEqual([]);
  });

  it("applies platform and service migrations in order, then is idempotent", async () => {
    const url = await createTestDatabase("db_migrate_order");
    const folder = migrationsFolder(root);
    folder.add("0001_init", "CREATE TABLE course (id text PRIMARY KEY, name text NOT NULL);");
    // Depends on 0001: fails if the order were wrong.
    folder.add("0002_add_code", "ALTER TABLE course ADD COLUMN code text;", true);
    folder.add("0003_seed", "INSERT INTO course (id, name, code) VALUES ('c1', 'Algebra', 'MATH1');");
    const sources = [PLATFORM_MIGRATIONS, { scope: "courses", directory: folder.directory }];

    const expected = ["platform/0001_outbox_inbox", "courses/0001_init", "courses/0002_add_code", "courses/0003_seed"];
    expect(await migrate(url, sources)).toEqual(expected);
    expect(await appliedIds(url)).toEqual(expected);
    expect(await tableExists(url, "outbox_message")).toBe(true);
    expect(await tableExists(url, "inbox_message")).toBe(true);
    expect(await query(url, "SELECT id, name, code FROM course")).toEqual([{ id: "c1", name: "Algebra", code: "MATH1" }]);

    // Second run: nothing to do (the seed would fail on its primary key if it ran again).
    expect(await migrate(url, sources)).toEqual([]);
    expect(await appliedIds(url)).toEqual(expected);

    // A new migration later on: only it is applied.
    folder.add("0004_index", "CREATE INDEX course_code_idx ON course (code);", true);
    expect(await migrate(url, sources)).toEqual(["courses/0004_index"]);
  });

  it("keeps scopes apart: the same migration name in two scopes is applied twice", async () => {
    const url = await createTestDatabase("db_migrate_scope");
    const a = migrationsFolder(root);
    const b = migrationsFolder(root);
    a.add("0001_init", "CREATE TABLE a_table (id int);");
    b.add("0001_init", "CREATE TABLE b_table (id int);");
    expect(
      await migrate(url, [
        { scope: "a", directory: a.directory },
        { scope: "b", directory: b.directory },
      ]),
    ).toEqual(["a/0001_init", "b/0001_init"]);
    expect(await tableExists(url, "a_table")).toBe(true);
    expect(await tableExists(url, "b_table")).toBe(true);
  });

  it("refuses a migration whose text changed after it was applied, naming it", async () => {
    const url = await createTestDatabase("db_migrate_changed");
    const folder = migrationsFolder(root);
    folder.add("0001_init", "CREATE TABLE thing (id int);");
    folder.add("0002_more", "CREATE TABLE other (id int);", true);
    const sources = [{ scope: "svc", directory: folder.directory }];
    await migrate(url, sources);

    folder.add("0002_more", "CREATE TABLE other (id int, extra text);", true);
    folder.add("0003_new", "CREATE TABLE newer (id int);");
    await expect(migrate(url, sources)).rejects.toThrow("Migration svc/0002_more was changed after it was applied");
    // Nothing after the drifted migration ran.
    expect(await tableExists(url, "newer")).toBe(false);
    expect(await appliedIds(url)).toEqual(["svc/0001_init", "svc/0002_more"]);

    // Restoring the original text lets it continue.
    folder.add("0002_more", "CREATE TABLE other (id int);", true);
    expect(await migrate(url, sources)).toEqual(["svc/0003_new"]);
  });

  it("rolls a failing migration back entirely and does not record it; earlier ones stay applied", async () => {
    const url = await createTestDatabase("db_migrate_failing");
    const folder = migrationsFolder(root);
    folder.add("0001_ok", "CREATE TABLE kept (id int);");
    folder.add("0002_bad", "CREATE TABLE half_done (id int);\nINSERT INTO kept VALUES (1);\nSELECT 1 / 0;", true);
    folder.add("0003_after", "CREATE TABLE never (id int);");
    const sources = [{ scope: "svc", directory: folder.directory }];

    const failure = await migrate(url, sources).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toBe("Migration svc/0002_bad failed: division by zero");
    expect((failure?.cause as { code?: string }).code).toBe("22012");
    expect(await tableExists(url, "half_done")).toBe(false);
    expect(await query(url, "SELECT count(*)::int AS n FROM kept")).toEqual([{ n: 0 }]);
    expect(await tableExists(url, "never")).toBe(false);
    expect(await appliedIds(url)).toEqual(["svc/0001_ok"]);

    // The lock was released and the connection closed: a fixed migration applies on the next run.
    folder.add("0002_bad", "CREATE TABLE half_done (id int);", true);
    expect(await migrate(url, sources)).toEqual(["svc/0002_bad", "svc/0003_after"]);
  });

  it("applies each migration exactly once when two migrate() calls race (advisory lock)", async () => {
    const url = await createTestDatabase("db_migrate_race");
    const folder = migrationsFolder(root);
    // Not idempotent on purpose: a second application would fail on the duplicate table / primary key.
    folder.add("0001_slow", "CREATE TABLE raced (id int PRIMARY KEY);\nSELECT pg_sleep(0.3);\nINSERT INTO raced VALUES (1);");
    folder.add("0002_next", "INSERT INTO raced VALUES (2);", true);
    const sources = [PLATFORM_MIGRATIONS, { scope: "svc", directory: folder.directory }];

    const results = await Promise.all([migrate(url, sources), migrate(url, sources), migrate(url, sources)]);
    const all = ["platform/0001_outbox_inbox", "svc/0001_slow", "svc/0002_next"];
    // Whoever got the lock first applied everything; the others found nothing left to do.
    expect(results.flat().sort()).toEqual([...all].sort());
    expect(results.filter((r) => r.length > 0)).toEqual([all]);
    expect(await appliedIds(url)).toEqual(all);
    expect(await query(url, "SELECT id FROM raced ORDER BY id")).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it("does not hold the advisory lock after returning", async () => {
    const url = await createTestDatabase("db_migrate_lock");
    await migrate(url, [PLATFORM_MIGRATIONS]);
    const locks = await query<{ n: number }>(
      url,
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(locks).toEqual([{ n: 0 }]);
  });
});

describe("ensureDatabase", () => {
  const adminUrl = () => {
    const value = process.env.STUDY_TEST_POSTGRES_URL;
    if (!value) throw new Error("STUDY_TEST_POSTGRES_URL is not set");
    return value;
  };

  it("creates a missing database once, also when several starters race", async () => {
    const name = `db_ensure_${uniqueSuffix()}`;
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;
    try {
      await Promise.all([ensureDatabase(url.toString()), ensureDatabase(url.toString()), ensureDatabase(url.toString())]);
      expect(await query(url.toString(), "SELECT current_database() AS name")).toEqual([{ name }]);
      // Existing database: nothing to do.
      await expect(ensureDatabase(url.toString())).resolves.toBeUndefined();
    } finally {
      await query(adminUrl(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    }
  });

  it("creates a missing database as a copy of a template", async () => {
    const urlOf = (name: string) => {
      const url = new URL(adminUrl());
      url.pathname = `/${name}`;
      return url.toString();
    };
    const template = `db_template_${uniqueSuffix()}`;
    const copy = `db_copy_${uniqueSuffix()}`;
    try {
      await ensureDatabase(urlOf(template));
      await query(urlOf(template), "CREATE TABLE migrated AS SELECT 7 AS id");
      await ensureDatabase(urlOf(copy), { template });
      expect(await query(urlOf(copy), "SELECT id FROM migrated")).toEqual([{ id: 7 }]);
    } finally {
      await query(adminUrl(), `DROP DATABASE IF EXISTS "${copy}" WITH (FORCE)`);
      await query(adminUrl(), `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    }
  });
});
