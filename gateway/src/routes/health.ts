import type { SqlClient } from "@study/db";
import { healthChecker } from "@study/grpc";
import { z } from "zod";
import { route, type RouteSpec } from "../http/api";

const status = z.enum(["SERVING", "NOT_SERVING", "UNKNOWN", "SERVICE_UNKNOWN", "UNREACHABLE"]);
const healthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    gateway: z.object({ status: status, database: status }),
    services: z.record(z.string(), status),
    timestamp: z.iso.datetime(),
  })
  .meta({ id: "Health" });

/**
 * GET /health: the gateway (its database) and every service's grpc.health.v1 status; 200 when all serve,
 * 503 otherwise. GET /health/live: the process answers (liveness must not depend on other services).
 */
export function healthRoutes(db: SqlClient, services: Record<string, string>, clientUrl: string): RouteSpec[] {
  const tag = "System";
  // One channel per service for the life of the process, not one per probe.
  const checkers = Object.entries(services).map(([name, address]) => [name, healthChecker(address)] as const);
  return [
    route({
      method: "get",
      path: "/health",
      tag,
      summary: "Health of the gateway and of every service",
      auth: false,
      responses: {
        200: { description: "Everything serves", schema: healthSchema },
        503: { description: "Something does not serve", schema: healthSchema },
      },
      async handler({ res }) {
        const database = await db.$queryRawUnsafe("SELECT 1").then(
          () => "SERVING",
          () => "NOT_SERVING",
        );
        const statuses = await Promise.all(checkers.map(async ([name, checker]) => [name, await checker.check()] as const));
        const healthy = database === "SERVING" && statuses.every(([, s]) => s === "SERVING");
        res.status(healthy ? 200 : 503).json({
          status: healthy ? "ok" : "degraded",
          gateway: { status: "SERVING", database },
          services: Object.fromEntries(statuses),
          timestamp: new Date().toISOString(),
        });
      },
    }),
    route({
      method: "get",
      path: "/health/live",
      tag,
      summary: "Liveness: the gateway process answers",
      auth: false,
      responses: { 200: { description: "Alive", schema: z.object({ status: z.literal("ok") }) } },
      handler({ res }) {
        res.status(200).json({ status: "ok" });
      },
    }),
    route({
      method: "get",
      path: "/",
      tag,
      summary: "Redirects to the client application",
      auth: false,
      responses: { 302: { description: "To CLIENT_URL" } },
      handler({ res }) {
        res.redirect(302, clientUrl);
      },
    }),
  ];
}
