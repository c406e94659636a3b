import initSqlJs, { type SqlJsStatic } from "sql.js";

let sqlJs: Promise<SqlJsStatic> | undefined;

/** sql.js (SQLite compiled to WebAssembly), compiled once on first use; a failed start is retried next time. */
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlJs ??= initSqlJs({ locateFile: () => require.resolve("sql.js/dist/sql-wasm.wasm") }).catch((error: unknown) => {
    sqlJs = undefined;
    throw error;
  });
  return sqlJs;
}
