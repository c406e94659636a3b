import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";

/**
 * A process's PostgreSQL connections: one pool, shared by its Prisma client and its prepared hot reads
 * (`PreparedStatement`), so that both count against one `DATABASE_POOL_SIZE`.
 *
 * An idle connection the server drops (a restart, a crash, an administrator's kill) is an 'error' event on the
 * pool, which pg-pool has already removed the connection for: `onIdleError` hears of it. The pool always has this
 * listener: without one, Node throws the event and the process exits — the gateway, whose pool no Prisma client
 * listens on, died each time PostgreSQL went away (the soak, #17).
 */
export function createPool(databaseUrl: string, poolSize = 10, onIdleError: (error: Error) => void = () => undefined): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize });
  pool.on("error", onIdleError);
  return pool;
}

/**
 * How long an interactive transaction may wait for a connection and then run. Prisma's defaults (2 s and 5 s)
 * turned a burst of uploads on a busy machine into 500s ("Unable to start a transaction in the given time"):
 * a request that waits its turn is better than one that fails; the callers' own deadlines bound the wait.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/**
 * Options every Prisma client of this project is built with: the pg driver adapter, no native engine. Given a
 * pool, Prisma uses it (and leaves ending it to its owner); given a URL, Prisma opens and closes its own.
 */
export function prismaOptions(database: string | Pool, poolSize = 10): { adapter: PrismaPg; transactionOptions: typeof TRANSACTION_OPTIONS } {
  return {
    adapter: new PrismaPg(typeof database === "string" ? { connectionString: database, max: poolSize } : database),
    transactionOptions: TRANSACTION_OPTIONS,
  };
}

/** The subset of a Prisma client the platform code (outbox, inbox) needs; works with any generated client. */
export interface SqlClient {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface TransactionalClient extends SqlClient {
  $transaction<R>(fn: (tx: SqlClient) => Promise<R>, options?: { timeout?: number; maxWait?: number }): Promise<R>;
}
