import type { Pool, PoolClient } from "pg";
import type { SqlClient, TransactionalClient } from "./prisma";

function sqlClient(queryable: Pool | PoolClient): SqlClient {
  return {
    async $executeRawUnsafe(query: string, ...values: unknown[]) {
      return (await queryable.query(query, values)).rowCount ?? 0;
    },
    async $queryRawUnsafe<T>(query: string, ...values: unknown[]) {
      return (await queryable.query(query, values)).rows as T;
    },
  };
}

/**
 * The platform's SQL interface (the one Prisma clients offer) over a plain pg pool, for the gateway whose
 * tables belong to its auth library rather than to Prisma.
 */
export function pgTransactionalClient(pool: Pool): TransactionalClient {
  return {
    ...sqlClient(pool),
    async $transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await fn(sqlClient(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        // eslint-disable-next-line no-restricted-syntax -- the transaction's own error is rethrown below; a ROLLBACK failing too (connection lost) adds nothing to it
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}
