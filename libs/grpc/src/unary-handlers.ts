import type { ServerUnaryCall, ServiceDefinition, handleUnaryCall } from "@grpc/grpc-js";
import type { Logger } from "@study/platform";
import { serviceNameOf, unary } from "./server";

/** A method of a ts-proto service definition (`…Service`), seen through its (de)serialisers. */
interface MethodShape<Req, Res> {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestDeserialize(value: Buffer): Req;
  responseSerialize(value: Res): Buffer;
}

type RequestOf<M> = M extends { requestDeserialize(value: Buffer): infer Req } ? Req : never;
type ResponseOf<M> = M extends { responseSerialize(value: infer Res): Buffer } ? Res : never;

/** The names of a definition's unary methods (streaming ones are bound elsewhere). */
export type UnaryMethodNames<D> = {
  [K in keyof D]: D[K] extends { requestStream: false; responseStream: false } ? K : never;
}[keyof D];

/** One promise-returning handler per unary method, typed from the generated definition. */
export type UnaryHandlers<D> = {
  [K in UnaryMethodNames<D>]: (request: RequestOf<D[K]>, call: ServerUnaryCall<RequestOf<D[K]>, ResponseOf<D[K]>>) => Promise<ResponseOf<D[K]>>;
};

/** The grpc-js side of those methods: what the generated `…Server` interface declares for them. */
export type BoundUnaryHandlers<D> = {
  [K in UnaryMethodNames<D>]: handleUnaryCall<RequestOf<D[K]>, ResponseOf<D[K]>>;
};

/** "CreateCourse" from "/study.courses.v1.CoursesService/CreateCourse", the name logs and errors use. */
export function methodNameOf(method: { path: string }): string {
  return method.path.slice(method.path.lastIndexOf("/") + 1);
}

/**
 * Binds one promise-returning handler per unary method of a ts-proto service definition, each through
 * `unary` (AppErrors keep their code, anything else is logged and leaves as INTERNAL):
 *
 *   bindUnaryHandlers(logger, api.CoursesServiceService, { getCourse: async (request) => ({ course }) })
 *
 * Request and response types come from the definition, so handlers need no annotations and no casts.
 */
export function bindUnaryHandlers<D extends ServiceDefinition>(logger: Logger, definition: D, handlers: UnaryHandlers<D>): BoundUnaryHandlers<D> {
  const methods: Record<string, MethodShape<unknown, unknown>> = definition;
  // Handlers of different methods take different requests: seen together, each accepts only what grpc-js
  // deserialised for its own method (hence `never`), which `unary` then passes through unchanged.
  const byName: Record<string, (request: never, call: ServerUnaryCall<never, never>) => Promise<unknown>> = handlers;
  const bound: Record<string, handleUnaryCall<never, unknown>> = {};
  for (const [name, handler] of Object.entries(byName)) {
    const method = methods[name];
    if (!method || method.requestStream || method.responseStream) {
      throw new Error(`${name} is not a unary method of ${serviceNameOf(definition)}`);
    }
    bound[name] = unary<never, unknown>(logger, methodNameOf(method), handler);
  }
  return bound as BoundUnaryHandlers<D>;
}
