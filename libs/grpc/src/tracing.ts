import type { EventEmitter } from "node:events";
import {
  Metadata,
  status as GrpcStatus,
  type MethodDefinition,
  type ServiceDefinition,
  type ServiceError,
  type UntypedHandleCall,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from "@opentelemetry/api";

/**
 * Spans of gRPC calls, made by this library's client and server rather than by
 * `@opentelemetry/instrumentation-grpc`, which cost the gateway ≈ 80 µs of CPU per call (a third of a unary
 * call's client side, measured; docs/PERFORMANCE.md, #16): it wraps every client method and callback in context
 * closures and binds the call's emitters. Names and attributes are the instrumentation's (`grpc.<service>/<Method>`,
 * rpc.system, rpc.service, rpc.method, rpc.grpc.status_code), so traces read the same; the W3C context travels in
 * the call's metadata (`traceparent`, `tracestate`).
 */
// A proxy until the process registers its provider, then that provider's tracer (resolved once, not per call).
const tracer = trace.getTracer("@study/grpc");

const metadataSetter: TextMapSetter<Metadata> = { set: (metadata, key, value) => metadata.set(key, value) };
const metadataGetter: TextMapGetter<Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
};

/** A method's span name and rpc attributes, worked out once per method rather than per call. */
export interface RpcMethod {
  name: string;
  attributes: { "rpc.system": "grpc"; "rpc.service": string; "rpc.method": string };
}

/** "/study.courses.v1.CoursesService/ListCourses" → its span name and rpc attributes. */
export function rpcMethod(path: string): RpcMethod {
  const slash = path.lastIndexOf("/");
  return {
    name: `grpc.${path.slice(1)}`,
    attributes: { "rpc.system": "grpc", "rpc.service": path.slice(1, slash), "rpc.method": path.slice(slash + 1) },
  };
}

function startRpcSpan(rpc: RpcMethod, kind: SpanKind, parent: Context): Span {
  const span = tracer.startSpan(rpc.name, { kind }, parent);
  if (span.isRecording()) span.setAttributes(rpc.attributes);
  return span;
}

/** Ends an RPC span with the call's status (OK when there is no error). */
function endRpcSpan(span: Span, error: Partial<ServiceError> | null | undefined): void {
  if (span.isRecording()) {
    const code = error ? (error.code ?? GrpcStatus.UNKNOWN) : GrpcStatus.OK;
    span.setAttribute("rpc.grpc.status_code", code);
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.details ?? error.message });
  }
  span.end();
}

/**
 * A client call's span, child of the active context, and the metadata that carries it to the server. `end` takes
 * the call's error, or null.
 */
export function clientCallSpan(rpc: RpcMethod): { metadata: Metadata; end: (error: Partial<ServiceError> | null) => void } {
  const parent = context.active();
  const span = startRpcSpan(rpc, SpanKind.CLIENT, parent);
  const metadata = new Metadata();
  propagation.inject(trace.setSpan(parent, span), metadata, metadataSetter);
  return { metadata, end: (error) => endRpcSpan(span, error) };
}

/** Metadata carrying the active trace context, for calls made on a raw grpc-js client (server streams). */
export function traceMetadata(): Metadata {
  const metadata = new Metadata();
  propagation.inject(context.active(), metadata, metadataSetter);
  return metadata;
}

/** What every kind of server call has: the metadata the client sent; a streaming call is an event emitter too. */
interface AnyCall {
  readonly metadata: Metadata;
}

/**
 * The implementation with each handler run in a server span: the caller's context from the metadata, the span
 * ended with the status sent (unary: the callback; streams: their end, error or cancellation).
 */
export function tracedImplementation(definition: ServiceDefinition, implementation: UntypedServiceImplementation): UntypedServiceImplementation {
  const traced: UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const method: MethodDefinition<unknown, unknown> | undefined = definition[name];
    traced[name] = method ? tracedHandler(method.path, method.responseStream || method.requestStream, handler) : handler;
  }
  return traced;
}

function tracedHandler(path: string, streaming: boolean, handler: UntypedHandleCall): UntypedHandleCall {
  const rpc = rpcMethod(path);
  const invoke = handler as (call: AnyCall, callback?: (error: ServiceError | null, ...rest: unknown[]) => void) => void;
  if (!streaming) {
    return ((call: AnyCall, callback: (error: ServiceError | null, ...rest: unknown[]) => void) => {
      const parent = propagation.extract(ROOT_CONTEXT, call.metadata, metadataGetter);
      const span = startRpcSpan(rpc, SpanKind.SERVER, parent);
      context.with(trace.setSpan(parent, span), () =>
        invoke(call, (error, ...rest) => {
          endRpcSpan(span, error);
          callback(error, ...rest);
        }),
      );
    }) as UntypedHandleCall;
  }
  return ((call: AnyCall & EventEmitter) => {
    const parent = propagation.extract(ROOT_CONTEXT, call.metadata, metadataGetter);
    const span = startRpcSpan(rpc, SpanKind.SERVER, parent);
    let ended = false;
    const end = (error: Partial<ServiceError> | null) => {
      if (ended) return;
      ended = true;
      endRpcSpan(span, error);
    };
    call.once("finish", () => end(null));
    call.once("error", (error: ServiceError) => end(error));
    call.once("cancelled", () => end({ code: GrpcStatus.CANCELLED, details: "cancelled by the client" }));
    context.with(trace.setSpan(parent, span), () => invoke(call));
  }) as UntypedHandleCall;
}
