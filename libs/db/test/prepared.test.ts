import { createPool, PreparedStatement, prismaOptions } from "@study/db";
import { createTestDatabase } from "@study/testkit";
import type { Pool } from "pg";

describe("PreparedStatement", () => {
  let pool: Pool;

  beforeAll(async () => {
    pool = createPool(await createTestDatabase("prepared"), 1);
    await pool.query("CREATE TABLE item (id int PRIMARY KEY, owner text NOT NULL, label text)");
    await pool.query("INSERT INTO item VALUES (1, 'ada', 'one'), (2, 'ada', NULL), (3, 'bob', 'three')");
  });

  afterAll(async () => {
    await pool.end();
  });

  const byOwner = new PreparedStatement<[owner: string], { id: number; label: string | null }>(
    "test.items_by_owner",
    "SELECT id, label FROM item WHERE owner = $1 ORDER BY id",
  );

  it("answers the rows of its parameters", async () => {
    expect(await byOwner.rows(pool, "ada")).toEqual([
      { id: 1, label: "one" },
      { id: 2, label: null },
    ]);
    expect(await byOwner.rows(pool, "carol")).toEqual([]);
  });

  it("is parsed once per connection, then only executed", async () => {
    // One connection in the pool: every call of this test runs on the same server session.
    await byOwner.rows(pool, "bob");
    const prepared = async () =>
      (await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE name = $1", [byOwner.name])).rows.length;
    expect(await prepared()).toBe(1);
    for (let i = 0; i < 5; i++) await byOwner.rows(pool, "ada");
    expect(await prepared()).toBe(1);
  });

  it("runs on one connection of the pool too, e.g. inside a transaction", async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("INSERT INTO item VALUES (4, 'bob', 'four')");
      expect((await byOwner.rows(client, "bob")).map((row) => row.id)).toEqual([3, 4]);
      await client.query("ROLLBACK");
    } finally {
      client.release();
    }
    expect((await byOwner.rows(pool, "bob")).map((row) => row.id)).toEqual([3]);
  });

  it("leaves a pool it was given to its owner: a Prisma adapter over the pool does not end it", async () => {
    const { adapter } = prismaOptions(pool);
    const connection = await adapter.connect();
    await connection.dispose();
    expect(await byOwner.rows(pool, "ada")).toHaveLength(2);
  });
});
