import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from "@grpc/grpc-js";
import { isAppError, type Logger } from "@study/platform";
import { HealthImplementation } from "grpc-health-check";
import { toServiceError } from "./errors";
import { authenticatedImplementation, type ServiceTokenVerifier } from "./internal-auth";
import { MESSAGE_SIZE_OPTIONS } from "./message-size";
import { tracedImplementation } from "./tracing";

export type UnaryHandler<Req, Res> = (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>;

/**
 * Adapts a promise-returning handler to grpc-js. Expected failures (AppError) travel with their code;
 * unexpected ones are logged with the trace id and leave as a generic INTERNAL.
 */
export function unary<Req, Res>(logger: Logger, method: string, handler: UnaryHandler<Req, Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (error: unknown) => {
        if (isAppError(error) && error.kind !== "internal") {
          logger.debug({ method, code: error.code }, "request refused");
        } else {
          logger.error({ err: error, method }, "request failed");
        }
        callback(toServiceError(error));
      },
    );
  };
}

/** What a server-streaming handler works with: `send` waits while the client reads slower than messages come. */
export interface ServerStreamContext<Req, Res> {
  send: (message: Res) => Promise<void>;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  call: ServerWritableStream<Req, Res>;
}

export type ServerStreamHandler<Req, Res> = (request: Req, context: ServerStreamContext<Req, Res>) => Promise<void>;

/**
 * Adapts a promise-returning server-streaming handler to grpc-js, as `unary` does for unary calls: the stream
 * ends with OK when the handler resolves; an AppError ends it with its code, anything else is logged and ends
 * it as a generic INTERNAL. A client that cancels aborts `signal`; the handler's settling then sends nothing.
 */
export function serverStream<Req, Res>(logger: Logger, method: string, handler: ServerStreamHandler<Req, Res>) {
  return (call: ServerWritableStream<Req, Res>): void => {
    const controller = new AbortController();
    const cancelled = () => new Error(`${method}: the client cancelled the call`);
    const cancel = () => controller.abort(cancelled());
    call.on("cancelled", cancel);
    call.on("close", cancel);
    const send = (message: Res) =>
      new Promise<void>((resolve, reject) => {
        if (controller.signal.aborted) return reject(cancelled());
        if (call.write(message)) return resolve();
        const drained = () => {
          controller.signal.removeEventListener("abort", aborted);
          resolve();
        };
        const aborted = () => {
          call.off("drain", drained);
          reject(cancelled());
        };
        call.once("drain", drained);
        controller.signal.addEventListener("abort", aborted, { once: true });
      });
    handler(call.request, { send, signal: controller.signal, call }).then(
      () => {
        if (!controller.signal.aborted) call.end();
      },
      (error: unknown) => {
        if (controller.signal.aborted || call.cancelled) {
          logger.debug({ method }, "stream cancelled by the client");
          return;
        }
        if (isAppError(error) && error.kind !== "internal") {
          logger.debug({ method, code: error.code }, "request refused");
        } else {
          logger.error({ err: error, method }, "request failed");
        }
        // grpc-js sends the status of an "error" event on a server stream, then ends it.
        call.emit("error", toServiceError(error));
      },
    );
  };
}

export interface GrpcServiceRegistration {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
  /** The only processes that may call this service (by their service-token name); any trusted one when absent. */
  callers?: readonly string[];
}

export interface RunningGrpcServer {
  server: Server;
  port: number;
  health: HealthImplementation;
  /** Marks every service NOT_SERVING, then drains in-flight calls. */
  shutdown(): Promise<void>;
}

/** Service name as used by the health protocol ("study.courses.v1.CoursesService"). */
export function serviceNameOf(definition: ServiceDefinition): string {
  const firstMethod = Object.values(definition)[0];
  return firstMethod.path.split("/")[1];
}

export async function startGrpcServer(options: {
  host?: string;
  port: number;
  services: GrpcServiceRegistration[];
  logger: Logger;
  /** Checks each call's service token (internal-auth.ts); without it every call is served (tests of one service). */
  auth?: ServiceTokenVerifier;
}): Promise<RunningGrpcServer> {
  const server = new Server({ ...MESSAGE_SIZE_OPTIONS });
  const names = options.services.map((s) => serviceNameOf(s.definition));
  const health = new HealthImplementation(Object.fromEntries(["", ...names].map((n) => [n, "SERVING" as const])));
  health.addToServer(server);
  for (const { definition, implementation, callers } of options.services) {
    const guarded = options.auth ? authenticatedImplementation(definition, implementation, options.auth, callers) : implementation;
    server.addService(definition, tracedImplementation(definition, guarded));
  }

  const address = `${options.host ?? "0.0.0.0"}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort))),
  );
  options.logger.info({ port, host: options.host ?? "0.0.0.0", services: names, authenticated: Boolean(options.auth) }, "gRPC server listening");

  return {
    server,
    port,
    health,
    async shutdown() {
      for (const name of ["", ...names]) health.setStatus(name, "NOT_SERVING");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 5_000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
