/**
 * (e) A bare Express app answering GET /health/live as the gateway does (`{"status":"ok"}`), in its own process,
 * same Node and express as the gateway: what the gateway's middleware and instrumentation cost is (b) against this.
 * Prints "listening <port>".
 */
import express from "express";

const app = express();
app.disable("x-powered-by");
app.get("/health/live", (_req, res) => {
  res.status(200).json({ status: "ok" });
});
const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : ""}\n`);
});
server.keepAliveTimeout = 65_000;
process.on("SIGTERM", () => server.close(() => process.exit(0)));
