import type { TransactionalClient } from "@study/db";
import { inRequestContext, type Logger } from "@study/platform";
import cors from "cors";
import express, { type Express, type Request, type Router } from "express";
import helmet from "helmet";
import swaggerUi from "swagger-ui-express";
import { z } from "zod";
import type { ServiceClients } from "./clients";
import type { GatewayConfig } from "./config";
import { ApiRegistry, route } from "./http/api";
import { errorHandler, notFound } from "./http/errors";
import { requestId } from "./http/request-id";
import { WEB_APP_PATH, webAppRoutes } from "./http/web-app";
import type { Identity } from "./identity/identity";
import { courseRoutes } from "./routes/courses";
import { healthRoutes } from "./routes/health";
import { importRoutes } from "./routes/imports";
import { jobRoutes } from "./routes/jobs";
import { uploadRoutes } from "./routes/uploads";
import { fileRoutes } from "./routes/files";
import { noteRoutes } from "./routes/notes";
import { notificationRoutes } from "./routes/notifications";
import { flashcardRoutes } from "./routes/flashcards";
import { quizRoutes } from "./routes/quizzes";
import { studyGuideRoutes } from "./routes/study-guides";
import { searchRoutes } from "./routes/search";
import { calendarRoutes } from "./routes/calendar";
import { dashboardRoutes } from "./routes/dashboard";
import { documentRoutes } from "./routes/documents";
import { billingRoutes, PROCESSOR_WEBHOOK_BODY_LIMIT, PROCESSOR_WEBHOOK_PATH } from "./routes/billing";
import { chatRoutes } from "./routes/chat";
import { referralRoutes } from "./routes/referral";
import { storeRoutes } from "./routes/store";

export interface GatewayDependencies {
  config: GatewayConfig;
  logger: Logger;
  db: TransactionalClient;
  /** Sign-up, sign-in, sessions, accounts (gateway/src/identity). */
  identity: Identity;
  clients: ServiceClients;
  serviceAddresses: Record<string, string>;
}

export const API_INFO = {
  title: "Study Service API",
  version: "1.0.0",
  description: "REST surface of the Study Service gateway. Errors use the envelope {success:false, error, code, details?, action?}.",
};

/** Every operation of the gateway, declared once: mounted and documented from the same definitions. */
export function apiRegistry(deps: GatewayDependencies): ApiRegistry {
  const { config } = deps;
  const registry = new ApiRegistry();
  registry.add(
    ...healthRoutes(deps.db, deps.serviceAddresses, config.CLIENT_URL),
    ...deps.identity.routes,
    ...courseRoutes(deps.clients),
    ...notificationRoutes(deps.clients),
    ...importRoutes(deps.clients, { videoInfoDeadlineMs: 60_000 }),
    ...uploadRoutes(deps.clients, config),
    ...fileRoutes(config),
    ...noteRoutes(deps.clients),
    ...jobRoutes(deps.clients, deps.logger),
    ...studyGuideRoutes(deps.clients, { generationDeadlineMs: config.STUDY_GENERATION_DEADLINE_MS }),
    ...quizRoutes(deps.clients, { generationDeadlineMs: config.STUDY_GENERATION_DEADLINE_MS }),
    ...flashcardRoutes(deps.clients, { generationDeadlineMs: config.STUDY_GENERATION_DEADLINE_MS }),
    ...searchRoutes(deps.clients),
    ...calendarRoutes(deps.clients, { baseUrl: config.BASE_URL, feedRateLimitPerMinute: config.CALENDAR_FEED_RATE_LIMIT_PER_MINUTE }),
    ...dashboardRoutes(deps.clients, deps.logger),
    ...documentRoutes(deps.clients, config),
    ...referralRoutes(deps.clients),
    ...billingRoutes(deps.clients),
    ...storeRoutes(deps.clients),
    ...chatRoutes(deps.clients, deps.logger, { answerDeadlineMs: config.CHAT_ANSWER_DEADLINE_MS }),
  );
  registry.add(
    route({
      method: "get",
      path: "/openapi.json",
      tag: "System",
      summary: "This OpenAPI 3.1 document",
      auth: false,
      responses: { 200: { description: "The document", schema: z.object({ openapi: z.string() }).loose() } },
      handler({ res }) {
        res.json(registry.openApiDocument({ ...API_INFO, serverUrl: config.BASE_URL }));
      },
    }),
  );
  if (config.ENABLE_SWAGGER) {
    registry.add(
      route({
        method: "get",
        path: "/docs",
        tag: "System",
        summary: "Interactive API documentation (Swagger UI; only when ENABLE_SWAGGER=true)",
        auth: false,
        responses: { 200: { description: "Swagger UI", contentType: "text/html" }, 301: { description: "To /docs/, where its assets load from" } },
        handler({ req, res }) {
          // The page loads its assets relative to /docs/.
          if (!req.originalUrl.split("?")[0].endsWith("/")) {
            res.redirect(301, "/docs/");
            return;
          }
          res.type("html").send(swaggerUi.generateHTML(registry.openApiDocument({ ...API_INFO, serverUrl: config.BASE_URL })));
        },
      }),
    );
  }
  return registry;
}

/**
 * The request body parsers: JSON everywhere, except the payment processor's webhook, whose signature covers the
 * body's exact bytes: that path is read raw (whatever its content type), before and so instead of the JSON parser.
 */
export function bodyParsers(jsonBodyLimit: string): Router {
  const parsers = express.Router();
  parsers.use(PROCESSOR_WEBHOOK_PATH, express.raw({ type: () => true, limit: PROCESSOR_WEBHOOK_BODY_LIMIT }));
  parsers.use(express.json({ limit: jsonBodyLimit }));
  return parsers;
}

/** Whether a request has a body to parse (as body-parser decides): a GET without one skips the parsers. */
const hasBody = (req: Request) => req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined;

/** The HTTP surface. Holds no business rules: authenticate, validate, call a service, shape the answer. */
export function createApp(deps: GatewayDependencies): Express {
  const { config } = deps;
  const app = express();
  app.disable("x-powered-by");
  // API answers are not revalidated by clients; hashing every body for an ETag was measurable CPU.
  app.set("etag", false);
  app.set("trust proxy", config.TRUST_PROXY);
  app.use(requestId);
  app.use(helmet());
  // Swagger UI's page loads its scripts and styles from /docs/ by relative URLs. The default CSP's
  // upgrade-insecure-requests turns them into https:// on the same port: a blank page wherever the gateway is
  // reached over plain HTTP at a name other than loopback (e.g. compose on a LAN address). The page has no
  // http:// URL to upgrade over HTTPS, so /docs goes without that directive; the rest of the policy, and the
  // API's, stay (gateway/test/e2e/swagger-browser.test.ts).
  // The web app (/app) loads its scripts and styles the same way.
  const pagePolicy = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  if (config.ENABLE_SWAGGER) app.use("/docs", pagePolicy);
  if (config.WEB_APP_DIR) app.use(WEB_APP_PATH, pagePolicy);
  const trusted = new Set([config.CLIENT_URL, ...config.TRUSTED_ORIGINS].map((url) => new URL(url).origin));
  const corsHeaders = cors({ origin: (origin, allow) => allow(null, origin !== undefined && trusted.has(origin)), credentials: true });
  // Only a browser's cross-origin request carries Origin; the others need no CORS headers, only the Vary that
  // tells caches the answer depends on it (cors costs ~4 % of a trivial request: docs/PERFORMANCE.md, #16).
  app.use((req, res, next) => {
    if (req.headers.origin !== undefined) {
      corsHeaders(req, res, next);
      return;
    }
    res.vary("Origin");
    next();
  });
  const parsers = bodyParsers(config.JSON_BODY_LIMIT);
  app.use((req, res, next) => {
    if (!hasBody(req)) {
      next();
      return;
    }
    // A parsed body calls on from its stream's 'end', outside the request's trace context: enter it again.
    parsers(req, res, (error?: unknown) => inRequestContext(req, () => next(error)));
  });

  const { sessions } = deps.identity;
  const registry = apiRegistry(deps);
  if (config.ENABLE_SWAGGER) app.use("/docs/", swaggerUi.serveFiles(registry.openApiDocument(API_INFO)));
  registry.mount(app, sessions.requireSession);
  if (config.WEB_APP_DIR) app.use(WEB_APP_PATH, webAppRoutes(config.WEB_APP_DIR));

  // Unknown routes: 401 for an unauthenticated caller under /api (every API route needs a session), 404 otherwise.
  app.use("/api", sessions.requireSession);
  app.use(notFound);
  app.use(errorHandler(deps.logger));
  return app;
}
