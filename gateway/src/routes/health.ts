import type { SqlClient } from "@study/db";
import { checkHealth } from "@study/grpc";
import { Router } from "express";

/**
 * GET /health: the gateway (its database) and every service's grpc.health.v1 status; 200 when all serve,
 * 503 otherwise. GET /health/live: the process answers (liveness must not depend on other services).
 */
export function healthRouter(db: SqlClient, services: Record<string, string>): Router {
  const router = Router();
  router.get("/live", (_req, res) => {
    res.status(200).json({ status: "ok" });
  });
  router.get("/", async (_req, res) => {
    const database = await db.$queryRawUnsafe("SELECT 1").then(
      () => "SERVING",
      () => "NOT_SERVING",
    );
    const statuses = await Promise.all(
      Object.entries(services).map(async ([name, address]) => [name, await checkHealth(address)] as const),
    );
    const servicesStatus = Object.fromEntries(statuses);
    const healthy = database === "SERVING" && statuses.every(([, status]) => status === "SERVING");
    res.status(healthy ? 200 : 503).json({
      status: healthy ? "ok" : "degraded",
      gateway: { status: "SERVING", database },
      services: servicesStatus,
      timestamp: new Date().toISOString(),
    });
  });
  return router;
}
