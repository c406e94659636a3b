import {
  credentials,
  type ChannelCredentials,
  type ClientOptions as GrpcClientOptions,
  Metadata,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type ServiceDefinition,
  type ServiceError,
} from "@grpc/grpc-js";
import { health } from "@study/contracts";
import { fromServiceError } from "./errors";
import { serviceTokenInterceptor } from "./internal-auth";
import { MESSAGE_SIZE_OPTIONS } from "./message-size";
import { serviceNameOf } from "./server";
import { clientCallSpan, rpcMethod } from "./tracing";

type UnaryCallback<Res> = (error: ServiceError | null, response: Res) => void;
type Method<Req, Res> = (request: Req, metadata: Metadata, options: Partial<CallOptions>, callback: UnaryCallback<Res>) => ClientUnaryCall;

/** The promise-returning view of a ts-proto grpc-js client: `await client.getCourse({...})`. */
export type PromiseClient<C> = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- matching any unary signature needs `any` (callback parameters are contravariant)
  [K in keyof C as C[K] extends Method<any, any> ? K : never]: C[K] extends Method<infer Req, infer Res>
    ? (request: Req, options?: { deadlineMs?: number }) => Promise<Res>
    : never;
};

export interface ClientOptions {
  /** Default deadline of every call. */
  deadlineMs?: number;
  /** Attempts for calls that fail with UNAVAILABLE (grpc-js retry policy, with backoff). */
  maxAttempts?: number;
}

/** A ts-proto client class (`…ServiceClient`), as generated. */
type ClientConstructor<C extends Client> = new (address: string, creds: ChannelCredentials, options?: Partial<GrpcClientOptions>) => C;

/** A client's property that is one of its methods (every key of the service definition is one). */
const isMethod = (value: unknown): value is Method<unknown, unknown> => typeof value === "function";

/**
 * Creates a typed client with a deadline on every call and retries on UNAVAILABLE. Errors come back as
 * the AppError the callee raised.
 */
export function createClient<C extends Client>(
  Ctor: ClientConstructor<C>,
  definition: ServiceDefinition,
  address: string,
  options: ClientOptions = {},
): PromiseClient<C> & { close(): void; raw: C } {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const serviceName = serviceNameOf(definition);
  const serviceConfig = {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: [
      {
        name: [{ service: serviceName }],
        retryPolicy: {
          maxAttempts: options.maxAttempts ?? 4,
          initialBackoff: "0.1s",
          maxBackoff: "1s",
          backoffMultiplier: 2,
          retryableStatusCodes: ["UNAVAILABLE"],
        },
      },
    ],
  };
  const raw = new Ctor(address, credentials.createInsecure(), {
    "grpc.service_config": JSON.stringify(serviceConfig),
    "grpc.enable_retries": 1,
    "grpc.keepalive_time_ms": 30_000,
    // A restarted service is reached within a second: grpc-js's default back-off grows to two minutes between attempts.
    "grpc.initial_reconnect_backoff_ms": 250,
    "grpc.max_reconnect_backoff_ms": 1_000,
    interceptors: [serviceTokenInterceptor(serviceName)],
    ...MESSAGE_SIZE_OPTIONS,
  });
  const calleeName = serviceName.split(".").at(-1) ?? serviceName;
  const wrapper: Record<string, unknown> = {
    raw,
    close: () => raw.close(),
  };
  for (const [method, { path }] of Object.entries(definition)) {
    const unbound: unknown = Reflect.get(raw, method);
    if (!isMethod(unbound)) throw new Error(`${serviceName} client has no method ${method}`);
    const fn = unbound.bind(raw);
    const rpc = rpcMethod(path);
    wrapper[method] = (request: unknown, callOptions?: { deadlineMs?: number }) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Date.now() + (callOptions?.deadlineMs ?? deadlineMs));
        const span = clientCallSpan(rpc);
        fn(request, span.metadata, { deadline }, (error, response) => {
          span.end(error);
          if (error) reject(fromServiceError(error, calleeName));
          else resolve(response);
        });
      });
  }
  return wrapper as PromiseClient<C> & { close(): void; raw: C };
}

export interface HealthChecker {
  /** The server's status name ("SERVING", ...) or "UNREACHABLE". */
  check(service?: string, deadlineMs?: number): Promise<string>;
  close(): void;
}

/**
 * A long-lived grpc.health.v1 client: repeated checks reuse one channel (a probe endpoint calls it often). A
 * failed check is repeated once on a new channel, because a channel that saw the server down waits out its
 * reconnect back-off and would report a recovered server as unreachable.
 */
export function healthChecker(address: string): HealthChecker {
  const connect = () => new health.HealthClient(address, credentials.createInsecure());
  let client = connect();
  const ask = (target: health.HealthClient, service: string, deadlineMs: number) =>
    new Promise<string>((resolve) =>
      target.check({ service }, new Metadata(), { deadline: new Date(Date.now() + deadlineMs) }, (error, response) =>
        resolve(error ? "UNREACHABLE" : health.healthCheckResponse_ServingStatusToJSON(response.status)),
      ),
    );
  return {
    async check(service = "", deadlineMs = 1_000) {
      const status = await ask(client, service, deadlineMs);
      if (status !== "UNREACHABLE") return status;
      client.close();
      client = connect();
      return ask(client, service, deadlineMs);
    },
    close: () => client.close(),
  };
}

/** One health check on a fresh channel (start-up probes); resolves to the status name or "UNREACHABLE". */
export async function checkHealth(address: string, service = "", deadlineMs = 1_000): Promise<string> {
  const checker = healthChecker(address);
  try {
    return await checker.check(service, deadlineMs);
  } finally {
    checker.close();
  }
}
