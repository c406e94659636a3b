import { PrismaPg } from "@prisma/adapter-pg";

/** Options every Prisma client of this project is built with: the pg driver adapter, no native engine. */
export function prismaOptions(databaseUrl: string, poolSize = 10): { adapter: PrismaPg } {
  return { adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) };
}

/** The subset of a Prisma client the platform code (outbox, inbox) needs; works with any generated client. */
export interface SqlClient {
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface TransactionalClient extends SqlClient {
  $transaction<R>(fn: (tx: SqlClient) => Promise<R>, options?: { timeout?: number; maxWait?: number }): Promise<R>;
}
