/**
 * (e) A bare Express app answering GET /health/live as the gateway does (`{"status":"ok"}`), in its own process,
 * same Node and express as the gateway: what the gateway's middleware and instrumentation cost is (b) against this.
 * Prints "listening <port>".
 */
import express from "express";
import { serveReference } from "./reference-server";

const app = express();
app.disable("x-powered-by");
app.get("/health/live", (_req, res) => {
  res.status(200).json({ status: "ok" });
});
serveReference(app);
