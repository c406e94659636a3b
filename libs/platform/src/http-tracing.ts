import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context } from "@opentelemetry/api";

/**
 * The HTTP server span of every request, made here rather than by `@opentelemetry/instrumentation-http`'s
 * incoming side (docs/PERFORMANCE.md, #16). That instrumentation wraps the server's `emit`, binds the request and
 * the response emitters (every listener added later is wrapped in a closure) and computes a dozen attributes on
 * every request, sampled or not: a third of the gateway's busy time on `GET /health/live`. Here a request costs
 * one context extraction and one span; an unsampled span (OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG) costs
 * next to nothing, and its trace id still reaches the logs and the next hop.
 *
 * The incoming W3C trace context is continued; the span ends when the response closes, named after the method
 * and the route the request matched (`route`, e.g. Express's `req.route.path`; the method alone when none did), with
 * the status code, and is an error for a 5xx answer or a response the client did not wait for.
 */
const REQUEST_CONTEXT = Symbol("study.requestContext");
type TracedRequest = IncomingMessage & { [REQUEST_CONTEXT]?: Context };

export interface HttpTracingOptions {
  /** The route template a request matched, read when it ends. */
  route?: (request: IncomingMessage) => string | undefined;
}

export function traceHttpRequests(listener: RequestListener, options: HttpTracingOptions = {}): RequestListener {
  const tracer = trace.getTracer("@study/platform/http");
  return (request: IncomingMessage, response: ServerResponse) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const method = request.method ?? "GET";
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      const url = request.url ?? "/";
      const query = url.indexOf("?");
      span.setAttributes({
        "http.request.method": method,
        // The path only: a query string may carry what a trace store should not keep.
        "url.path": query === -1 ? url : url.slice(0, query),
        "url.scheme": "http",
        "network.peer.address": request.socket.remoteAddress ?? "",
        "user_agent.original": request.headers["user-agent"] ?? "",
      });
    }
    response.once("close", () => {
      if (span.isRecording()) {
        const route = options.route?.(request);
        if (route) {
          span.setAttribute("http.route", route);
          span.updateName(`${method} ${route}`);
        }
        span.setAttribute("http.response.status_code", response.statusCode);
        if (!response.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR, message: "the client closed the connection first" });
        else if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    const active = trace.setSpan(parent, span);
    (request as TracedRequest)[REQUEST_CONTEXT] = active;
    context.with(active, listener, undefined, request, response);
  };
}

/**
 * Runs `next` in the request's trace context again. Listeners of a request's stream (a body parser's 'end') run in
 * the connection's context, not the request's: middleware placed after such a parser restores it, so the spans
 * and log lines of what follows belong to the request (the instrumentation bound both emitters for this).
 */
export function inRequestContext(request: IncomingMessage, next: () => void): void {
  const active = (request as TracedRequest)[REQUEST_CONTEXT];
  if (active && active !== context.active()) context.with(active, next);
  else next();
}
