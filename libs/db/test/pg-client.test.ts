import { pgTransactionalClient, type TransactionalClient } from "@study/db";
import { createTestDatabase } from "@study/testkit";
import { Pool } from "pg";

describe("pgTransactionalClient", () => {
  let pool: Pool;
  let db: TransactionalClient;

  beforeAll(async () => {
    const url = await createTestDatabase("db_pg_client");
    pool = new Pool({ connectionString: url, max: 4 });
    db = pgTransactionalClient(pool);
    await db.$executeRawUnsafe("CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL)");
  });
  afterAll(async () => {
    await pool.end();
  });
  beforeEach(async () => {
    await db.$executeRawUnsafe("DELETE FROM item");
  });

  const names = async () => (await db.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM item ORDER BY id")).map((r) => r.name);

  it("runs parameterised statements: $executeRawUnsafe returns the row count, $queryRawUnsafe the rows", async () => {
    expect(await db.$executeRawUnsafe("INSERT INTO item VALUES ($1, $2), ($3, $4)", 1, "a", 2, "b")).toBe(2);
    expect(await db.$executeRawUnsafe("UPDATE item SET name = upper(name) WHERE id > $1", 0)).toBe(2);
    expect(await db.$queryRawUnsafe("SELECT id, name FROM item WHERE name = $1", "B")).toEqual([{ id: 2, name: "B" }]);
    expect(await db.$executeRawUnsafe("DELETE FROM item WHERE id = $1", 99)).toBe(0);
  });

  it("commits a transaction and returns the callback's result", async () => {
    const result = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("INSERT INTO item VALUES ($1, $2)", 1, "committed");
      // Visible inside the transaction...
      const inside = await tx.$queryRawUnsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM item");
      // ...but not yet to other connections.
      const outside = await db.$queryRawUnsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM item");
      return { inside: inside[0].n, outside: outside[0].n };
    });
    expect(result).toEqual({ inside: 1, outside: 0 });
    expect(await names()).toEqual(["committed"]);
  });

  it("rolls back everything when the callback throws, and rethrows the same error", async () => {
    const failure = new Error("use case refused");
    await expect(
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("INSERT INTO item VALUES ($1, $2)", 1, "first");
        await tx.$executeRawUnsafe("INSERT INTO item VALUES ($1, $2)", 2, "second");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await names()).toEqual([]);
  });

  it("rolls back when a statement fails inside the transaction", async () => {
    await db.$executeRawUnsafe("INSERT INTO item VALUES (1, 'existing')");
    await expect(
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("INSERT INTO item VALUES (2, 'new')");
        await tx.$executeRawUnsafe("INSERT INTO item VALUES (1, 'duplicate')");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await names()).toEqual(["existing"]);
  });

  it("returns its connection to the pool after commit and rollback (no leak)", async () => {
    for (let i = 0; i < 10; i++) {
      await db.$transaction(async (tx) => tx.$executeRawUnsafe("INSERT INTO item VALUES ($1, 'x')", i));
      await expect(db.$transaction(async () => Promise.reject(new Error("nope")))).rejects.toThrow("nope");
    }
    // Ten of each with a pool of 4: a leaked client would have blocked the loop.
    expect(pool.totalCount).toBeLessThanOrEqual(4);
    expect(pool.idleCount).toBe(pool.totalCount);
    expect(pool.waitingCount).toBe(0);
    expect((await names()).length).toBe(10);
  });

  it("isolates concurrent transactions on separate connections", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("INSERT INTO item VALUES (1, 'slow')");
      await gate;
      throw new Error("abort slow");
    });
    await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("INSERT INTO item VALUES (2, 'fast')");
    });
    release();
    await expect(slow).rejects.toThrow("abort slow");
    expect(await names()).toEqual(["fast"]);
  });
});
