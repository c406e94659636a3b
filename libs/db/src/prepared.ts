import type { Pool, PoolClient, QueryResultRow } from "pg";

/** Where a prepared statement runs: the process's pool, or one connection of it. */
export type Queryable = Pick<Pool | PoolClient, "query">;

/**
 * One SQL statement of a hot path, sent through node-postgres as a named statement: each connection parses and
 * plans it once, later calls send only the parameters. Prisma's query path cost about four times the CPU of
 * this for the same query (`npm run bench:read-path`, docs/PERFORMANCE.md). The name must be unique in the
 * process and always go with the same text.
 */
export class PreparedStatement<Params extends unknown[], Row extends QueryResultRow> {
  constructor(
    readonly name: string,
    readonly text: string,
  ) {}

  async rows(db: Queryable, ...params: Params): Promise<Row[]> {
    const result = await db.query<Row>({ name: this.name, text: this.text, values: params });
    return result.rows;
  }
}
