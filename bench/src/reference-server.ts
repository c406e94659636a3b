import type { Express } from "express";
import type { Pool } from "pg";

/**
 * Serves a reference app of the benchmarks on 127.0.0.1:PORT (0: any), prints "listening <port>" for the bench to
 * read, and on SIGTERM closes the server, then its database pools, then exits.
 */
export function serveReference(app: Express, pools: Pool[] = []): void {
  const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
  });
  server.keepAliveTimeout = 65_000;
  process.on("SIGTERM", () =>
    server.close(() => {
      void Promise.all(pools.map((pool) => pool.end())).then(() => process.exit(0));
    }),
  );
}
