import type { SqlClient } from "@study/db";
import type { Logger } from "@study/platform";
import express, { type Express } from "express";
import type { Auth } from "./auth/auth";
import type { SignInLockout } from "./auth/lockout";
import { authRouter } from "./auth/routes";
import { sessionResolver } from "./auth/session";
import type { ServiceClients } from "./clients";
import type { GatewayConfig } from "./config";
import { errorHandler, notFound } from "./http/errors";
import { requestId } from "./http/request-id";
import { coursesRouter } from "./routes/courses";
import { healthRouter } from "./routes/health";
import { notificationsRouter } from "./routes/notifications";

export interface GatewayDependencies {
  config: GatewayConfig;
  logger: Logger;
  db: SqlClient;
  auth: Auth;
  lockout: SignInLockout;
  clients: ServiceClients;
  serviceAddresses: Record<string, string>;
}

/** The HTTP surface. Holds no business rules: authenticate, validate, call a service, shape the answer. */
export function createApp(deps: GatewayDependencies): Express {
  const { config } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.TRUST_PROXY);
  app.use(requestId);
  app.use(express.json({ limit: config.JSON_BODY_LIMIT }));

  app.get("/", (_req, res) => res.redirect(302, config.CLIENT_URL));
  app.use("/health", healthRouter(deps.db, deps.serviceAddresses));

  const sessions = sessionResolver(deps.auth, deps.db);
  app.use("/api/auth", authRouter({ auth: deps.auth, db: deps.db, lockout: deps.lockout, sessions }));

  // Everything else under /api needs a session.
  app.use("/api", sessions.requireSession);
  app.use("/api/courses", coursesRouter(deps.clients));
  app.use("/api/notifications", notificationsRouter(deps.clients));

  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
