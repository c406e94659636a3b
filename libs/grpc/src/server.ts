import {
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from "@grpc/grpc-js";
import { isAppError, type Logger } from "@study/platform";
import { HealthImplementation } from "grpc-health-check";
import { toServiceError } from "./errors";

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

export interface GrpcServiceRegistration {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
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
}): Promise<RunningGrpcServer> {
  const server = new Server({ "grpc.max_receive_message_length": 16 * 1024 * 1024 });
  const names = options.services.map((s) => serviceNameOf(s.definition));
  const health = new HealthImplementation(Object.fromEntries(["", ...names].map((n) => [n, "SERVING" as const])));
  health.addToServer(server);
  for (const service of options.services) server.addService(service.definition, service.implementation);

  const address = `${options.host ?? "0.0.0.0"}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    ),
  );
  options.logger.info({ port, services: names }, "gRPC server listening");

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
