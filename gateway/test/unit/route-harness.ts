import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunningGrpcServer } from "@study/grpc";
import { AppError, loadConfig, type Logger } from "@study/platform";
import { httpClient } from "@study/testkit";
import { CATALOGUE } from "@study/platform/catalogue";
import express, { type RequestHandler } from "express";
import { z } from "zod";
import { createServiceClients, type ServiceClients } from "../../src/clients";
import { gatewayConfigSchema, type GatewayConfig } from "../../src/config";
import { ApiRegistry, route, type RouteSpec } from "../../src/http/api";
import { errorHandler, notFound } from "../../src/http/errors";

export interface RouteHarnessOptions {
  /** The user every Bearer token stands for. */
  userId: string;
  logger: Logger;
  /** The body parsers, as the gateway mounts them (default: JSON). */
  bodyParsers?: RequestHandler | express.Router;
}

/**
 * Routes mounted as the gateway mounts them (OpenAPI document, not-found and error handlers), with a stand-in session:
 * any Bearer token is the user `userId`, no token is 401. For route tests against an in-process gRPC stand-in.
 */
export function startRouteHarness(routes: RouteSpec[], options: RouteHarnessOptions): Promise<{ url: string; server: Server }> {
  const registry = new ApiRegistry().add(...routes);
  registry.add(
    route({
      method: "get",
      path: "/openapi.json",
      tag: "System",
      summary: "The document",
      auth: false,
      responses: { 200: { description: "The document", schema: z.object({ openapi: z.string() }).loose() } },
      handler({ res }) {
        res.json(registry.openApiDocument({ title: "test", version: "1" }));
      },
    }),
  );
  const at = new Date("2026-11-20T10:00:00.000Z");
  const signedIn: RequestHandler = (req, res, next) => {
    if (!req.headers.authorization) {
      next(AppError.unauthenticated());
      return;
    }
    res.locals.auth = {
      user: { id: options.userId, name: "Ada", email: "ada@example.com", emailVerified: true, createdAt: at, updatedAt: at },
      session: { id: "session-1", token: "token", userId: options.userId, expiresAt: at, createdAt: at, updatedAt: at },
    };
    next();
  };
  const app = express();
  app.use(options.bodyParsers ?? express.json());
  registry.mount(app, signedIn);
  app.use(notFound);
  app.use(errorHandler(options.logger));
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }));
  });
}

/**
 * The gateway's settings with every service's address at `grpcAddress` (the test's in-process stand-in), and the
 * clients made from them as the gateway makes its own.
 */
export function harnessClients(grpcAddress: string): { config: GatewayConfig; clients: ServiceClients } {
  const config = loadConfig(gatewayConfigSchema, {
    DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
    RABBITMQ_URL: "amqp://127.0.0.1:1",
    AUTH_SECRET: "s".repeat(32),
    BASE_URL: "http://127.0.0.1:3000",
    CLIENT_URL: "https://app.example.com",
    ...Object.fromEntries(CATALOGUE.map((entry) => [entry.grpcAddressVariable, grpcAddress])),
  });
  return { config, clients: createServiceClients(config) };
}

/** Routes over an in-process gRPC stand-in: the gateway's clients to it, the routes mounted, an HTTP client to them. */
export interface StandInGateway {
  url: string;
  server: Server;
  clients: ServiceClients;
  config: GatewayConfig;
  api: ReturnType<typeof httpClient>;
  /** Closes the HTTP server, the clients and the stand-in. */
  stop(): Promise<void>;
}

/** `startRouteHarness` for the routes `routesOf` makes from clients to `grpc` (see harnessClients); one `stop` ends it all. */
export async function startStandInGateway(
  grpc: RunningGrpcServer,
  routesOf: (clients: ServiceClients, config: GatewayConfig) => RouteSpec[],
  options: RouteHarnessOptions,
): Promise<StandInGateway> {
  const { config, clients } = harnessClients(`127.0.0.1:${grpc.port}`);
  const { url, server } = await startRouteHarness(routesOf(clients, config), options);
  return {
    url,
    server,
    clients,
    config,
    api: httpClient(url),
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      for (const client of Object.values(clients)) client.close();
      await grpc.shutdown();
    },
  };
}
