/**
 * The process pool outlives a dropped idle connection (what a PostgreSQL crash or restart does to every one of
 * them): the pool's 'error' event reaches `onIdleError` instead of being thrown, which would end the process
 * (the gateway died so during the soak's PostgreSQL fault, #17), and the next query opens a new connection.
 */
import { createPool } from "@study/db";
import { createTestDatabase } from "@study/testkit";
import { Client, type Pool } from "pg";

describe("createPool", () => {
  let pool: Pool;
  let url: string;

  beforeAll(async () => {
    url = await createTestDatabase("pool");
  });

  afterAll(async () => {
    await pool.end();
  });

  it("hands a dropped idle connection's error to onIdleError and serves the next query on a new one", async () => {
    const errors: Error[] = [];
    pool = createPool(url, 2, (error) => errors.push(error));
    const [{ pid }] = (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows;
    expect(pool.idleCount).toBe(1);

    // Another session ends the idle connection's backend, as a server going down does.
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.end();
    for (let waited = 0; errors.length === 0 && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));

    expect(errors).toHaveLength(1);
    expect(pool.idleCount).toBe(0);
    const [{ next }] = (await pool.query<{ next: number }>("SELECT pg_backend_pid() AS next")).rows;
    expect(next).not.toBe(pid);
  });
});
