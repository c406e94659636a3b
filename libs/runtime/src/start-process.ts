import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPool, type TransactionalClient } from "@study/db";
import { AmqpConnection, startOutboxRelay } from "@study/events";
import {
  parseInternalAuthKey,
  parseTrustedKeys,
  ServiceTokenSigner,
  ServiceTokenVerifier,
  startGrpcServer,
  useServiceIdentity,
  type GrpcServiceRegistration,
} from "@study/grpc";
import {
  amqpUrl,
  baseConfigSchema,
  ConfigError,
  createLogger,
  Lifecycle,
  loadConfig,
  port,
  postgresUrl,
  traceHttpRequests,
  type Logger,
} from "@study/platform";
import { startTelemetry, stopTelemetry } from "@study/platform/telemetry";
import type { Pool } from "pg";
import { z } from "zod";

/** Settings of every process the runtime starts (service, worker, gateway). */
export const processConfigSchema = baseConfigSchema.extend({
  DATABASE_URL: postgresUrl(),
  DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe("The process's PostgreSQL connections, shared by Prisma and the prepared hot reads."),
  RABBITMQ_URL: amqpUrl(),
  EVENT_EXCHANGE: z.string().min(1).default("study.events").describe("The topic exchange of the domain events (queues are `<exchange>.<consumer>`)."),
});
export type ProcessConfig = Pick<
  z.infer<typeof processConfigSchema>,
  "NODE_ENV" | "LOG_LEVEL" | "DATABASE_URL" | "DATABASE_POOL_SIZE" | "RABBITMQ_URL" | "EVENT_EXCHANGE" | "INTERNAL_BIND_HOST"
> &
  Partial<Pick<z.infer<typeof processConfigSchema>, "INTERNAL_AUTH_KEY" | "INTERNAL_AUTH_PUBLIC_KEYS">>;

/** A service's gRPC port setting, with the service's own default. */
export const grpcPort = (fallback: number) => port(fallback).describe("The service's gRPC port (0: any free port).");

/** Settings of every gRPC service. */
export const serviceConfigSchema = processConfigSchema.extend({ GRPC_PORT: grpcPort(50051) });
export type ServiceConfig = z.infer<typeof serviceConfigSchema>;

/** A database handle the runtime can close. */
export type Database<Db extends TransactionalClient> = Db & { $disconnect(): Promise<void> };

export interface ProcessContext<Db, C> {
  config: C;
  /** Checks the service tokens of calls to this process's gRPC server (undefined: calls are not authenticated). */
  internalAuth?: ServiceTokenVerifier;
  logger: Logger;
  db: Db;
  /** The connections `db` uses, for prepared hot reads (`PreparedStatement` of @study/db). */
  pool: Pool;
  amqp: AmqpConnection;
  /** What the composition's consumers are opened with: spread into a consumer adapter's options (ConsumerLink). */
  consumerLink: { connection: AmqpConnection; db: Db; exchange: string; logger: Logger };
  lifecycle: Lifecycle;
}

interface ProcessBase<Db extends TransactionalClient, C extends ProcessConfig> {
  /** Logger, telemetry and broker connection name. */
  name: string;
  configSchema: z.ZodType<C>;
  /** The database client, over `pool`: the process's connections, which the runtime ends after `$disconnect`. */
  createDatabase(config: C, pool: Pool): Database<Db>;
}

/** A gRPC service: serves the composed gRPC services (with health) on GRPC_PORT. */
export interface ServiceProcess<Db extends TransactionalClient, C extends ServiceConfig> extends ProcessBase<Db, C> {
  kind: "service";
  /** Builds adapters and use cases; returns the gRPC services to serve and starts consumers. */
  compose(context: ProcessContext<Db, C>): Promise<GrpcServiceRegistration[]>;
}

/** A worker: consumes RabbitMQ only; the runtime serves its `GET /health/live` on `healthPort` (0: none). */
export interface WorkerProcess<Db extends TransactionalClient, C extends ProcessConfig> extends ProcessBase<Db, C> {
  kind: "worker";
  healthPort(config: C): number;
  /** Builds adapters and use cases and starts the consumers; registers its own closers on `lifecycle`. */
  compose(context: ProcessContext<Db, C>): Promise<void>;
}

type GrpcPortConfig = ProcessConfig & { GRPC_PORT: number };
type GatewayPortsConfig = GrpcPortConfig & { PORT: number };

/** The gateway: its own gRPC API on GRPC_PORT, then HTTP on PORT (served after gRPC, so HTTP implies gRPC). */
export interface GatewayProcess<Db extends TransactionalClient, C extends GatewayPortsConfig> extends ProcessBase<Db, C> {
  kind: "gateway";
  compose(context: ProcessContext<Db, C>): Promise<{
    grpc: GrpcServiceRegistration[];
    http: RequestListener;
    /** The route a request matched ("/api/courses/:id"), read when it ends: the HTTP span's name and http.route. */
    httpRoute?: (request: IncomingMessage) => string | undefined;
    /** Timeouts and the like, set before listening. */
    configureHttp?(server: Server): void;
  }>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  /** Shut down on SIGINT/SIGTERM and exit (default). Tests that run a process inside jest pass false. */
  handleSignals?: boolean;
  /** Start (if the entry's instrumentation has not) and flush OpenTelemetry; defaults to `handleSignals`. */
  telemetry?: boolean;
}

export interface RunningProcess<Db, C> extends ProcessContext<Db, C> {
  /** Ports actually bound (useful when 0 asked for a free one). */
  grpcPort?: number;
  httpPort?: number;
  healthPort?: number;
}

type AnyProcess =
  | ServiceProcess<TransactionalClient, ServiceConfig>
  | WorkerProcess<TransactionalClient, ProcessConfig>
  | GatewayProcess<TransactionalClient, GatewayPortsConfig>;

/**
 * Starts a process of any kind with one sequence: config → logger → telemetry → database → broker →
 * outbox relay → composition → servers, and an orderly, bounded shutdown in reverse order on SIGINT/SIGTERM.
 *
 * Telemetry: OpenTelemetry can patch only modules loaded after it starts, so each entry (`main.ts`,
 * `worker.ts`) still imports its `instrumentation.ts` first; this step is then a no-op start, and registers
 * the flush of pending spans as the last closer.
 */
export function startProcess<Db extends TransactionalClient, C extends ServiceConfig>(
  definition: ServiceProcess<Db, C>,
  options?: StartOptions,
): Promise<RunningProcess<Db, C> & { grpcPort: number }>;
export function startProcess<Db extends TransactionalClient, C extends ProcessConfig>(
  definition: WorkerProcess<Db, C>,
  options?: StartOptions,
): Promise<RunningProcess<Db, C>>;
export function startProcess<Db extends TransactionalClient, C extends GatewayPortsConfig>(
  definition: GatewayProcess<Db, C>,
  options?: StartOptions,
): Promise<RunningProcess<Db, C> & { grpcPort: number; httpPort: number }>;
export async function startProcess(definition: AnyProcess, options: StartOptions = {}): Promise<RunningProcess<TransactionalClient, ProcessConfig>> {
  switch (definition.kind) {
    case "service": {
      const context = await foundation(definition, options);
      return closingOnFailure(context, async () => {
        const grpcPort = await serveGrpc(context, await definition.compose(context));
        return { ...context, grpcPort };
      });
    }
    case "worker": {
      const context = await foundation(definition, options);
      return closingOnFailure(context, async () => {
        await definition.compose(context);
        const wanted = definition.healthPort(context.config);
        const healthPort = wanted > 0 ? await serveLiveness(wanted, context.config.INTERNAL_BIND_HOST, context.lifecycle) : undefined;
        if (healthPort) context.logger.info({ healthPort }, "liveness endpoint listening");
        return { ...context, healthPort };
      });
    }
    case "gateway": {
      const context = await foundation(definition, options);
      return closingOnFailure(context, async () => {
        const composed = await definition.compose(context);
        const grpcPort = await serveGrpc(context, composed.grpc);
        const server = createServer(traceHttpRequests(composed.http, { route: composed.httpRoute }));
        composed.configureHttp?.(server);
        const httpPort = await listen(server, context.config.PORT);
        context.lifecycle.onStop("http server", () => closeServer(server));
        context.logger.info({ port: httpPort, grpcPort }, `${definition.name} listening`);
        return { ...context, grpcPort, httpPort };
      });
    }
  }
}

/** A start that fails half-way closes what it had opened (a test's process, or a port already taken). */
async function closingOnFailure<T>(context: { lifecycle: Lifecycle }, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await context.lifecycle.stop();
    throw error;
  }
}

/** The steps every kind shares, up to the composition: config → logger → telemetry → database → broker → relay. */
async function foundation<Db extends TransactionalClient, C extends ProcessConfig>(
  definition: ProcessBase<Db, C>,
  options: StartOptions,
): Promise<ProcessContext<Db, C>> {
  const config = loadConfig(definition.configSchema, options.env);
  const logger = createLogger(definition.name, config.LOG_LEVEL);
  const internalAuth = internalAuthOf(definition.name, config, logger);
  const lifecycle = new Lifecycle(logger);
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) lifecycle.listenForSignals();

  if (options.telemetry ?? handleSignals) {
    startTelemetry(definition.name);
    lifecycle.onStop("telemetry", () => stopTelemetry());
  }

  const pool = createPool(config.DATABASE_URL, config.DATABASE_POOL_SIZE, (error) =>
    logger.warn({ err: error }, "an idle database connection failed; the pool dropped it and opens another when needed"),
  );
  const db = definition.createDatabase(config, pool);
  lifecycle.onStop("database", async () => {
    await db.$disconnect();
    await pool.end();
  });

  const amqp = new AmqpConnection(config.RABBITMQ_URL, logger, definition.name);
  lifecycle.onStop("rabbitmq", () => amqp.close());
  const consumerLink = { connection: amqp, db, exchange: config.EVENT_EXCHANGE, logger };
  const context = { config, logger, db, pool, amqp, consumerLink, lifecycle, internalAuth };
  return closingOnFailure(context, async () => {
    // Serving does not wait for the broker: the outbox holds events until it is back.
    await amqp.start(5_000);
    const relay = await startOutboxRelay({ db, databaseUrl: config.DATABASE_URL, amqp, exchange: config.EVENT_EXCHANGE, logger });
    lifecycle.onStop("outbox relay", () => relay.stop());
    return context;
  });
}

/**
 * This process's service identity (its calls are signed as `name`) and the check of its callers, from
 * INTERNAL_AUTH_KEY and INTERNAL_AUTH_PUBLIC_KEYS. Production refuses to start without them; elsewhere their
 * absence (a test of one service in its own process) is logged.
 */
function internalAuthOf(name: string, config: ProcessConfig, logger: Logger): ServiceTokenVerifier | undefined {
  const key = config.INTERNAL_AUTH_KEY;
  const publicKeys = config.INTERNAL_AUTH_PUBLIC_KEYS;
  if (!key || !publicKeys) {
    if (config.NODE_ENV === "production") {
      throw new ConfigError(
        "Invalid configuration: INTERNAL_AUTH_KEY and INTERNAL_AUTH_PUBLIC_KEYS are required in production (internal gRPC calls are authenticated; see k8s/README.md)",
      );
    }
    logger.warn("INTERNAL_AUTH_KEY or INTERNAL_AUTH_PUBLIC_KEYS is not set: internal gRPC calls are not authenticated");
  }
  signInternalCalls(name, key);
  return publicKeys ? new ServiceTokenVerifier(parsedSetting("INTERNAL_AUTH_PUBLIC_KEYS", () => parseTrustedKeys(publicKeys))) : undefined;
}

/** This process's gRPC calls are signed as `name` with INTERNAL_AUTH_KEY (none when it is not set). */
export function signInternalCalls(name: string, key: string | undefined): void {
  useServiceIdentity(
    key
      ? new ServiceTokenSigner(
          name,
          parsedSetting("INTERNAL_AUTH_KEY", () => parseInternalAuthKey(key)),
        )
      : undefined,
  );
}

function parsedSetting<T>(variable: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${variable}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function serveGrpc<Db>(context: ProcessContext<Db, GrpcPortConfig>, services: GrpcServiceRegistration[]): Promise<number> {
  const server = await startGrpcServer({
    host: context.config.INTERNAL_BIND_HOST,
    port: context.config.GRPC_PORT,
    services,
    logger: context.logger,
    auth: context.internalAuth,
  });
  context.lifecycle.onStop("grpc server", () => server.shutdown());
  return server.port;
}

/** A worker's liveness endpoint: the process answers (it must not depend on the database or broker). */
async function serveLiveness(wanted: number, host: string, lifecycle: Lifecycle): Promise<number> {
  const server = createServer(
    traceHttpRequests((request, response) => {
      const live = request.method === "GET" && request.url === "/health/live";
      response.writeHead(live ? 200 : 404, { "content-type": "application/json" }).end(live ? '{"status":"ok"}' : '{"status":"not found"}');
    }),
  );
  const bound = await listen(server, wanted, host);
  lifecycle.onStop("health server", () => closeServer(server));
  return bound;
}

function listen(server: Server, port: number, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Stops accepting connections and closes idle keep-alive ones; open requests (SSE) end by the closer's time limit. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
