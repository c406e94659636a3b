import { context, propagation, trace, type Context } from "@opentelemetry/api";

/** W3C trace context of the active span, as carried in event envelopes and message headers. */
export function currentTraceHeaders(): { traceparent: string; tracestate: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return { traceparent: carrier.traceparent ?? "", tracestate: carrier.tracestate ?? "" };
}

export function contextFromTraceHeaders(headers: { traceparent?: string; tracestate?: string }): Context {
  const carrier: Record<string, string> = {};
  if (headers.traceparent) carrier.traceparent = headers.traceparent;
  if (headers.tracestate) carrier.tracestate = headers.tracestate;
  return propagation.extract(context.active(), carrier);
}

/**
 * Names the active HTTP server span after the matched route ("GET /api/courses/:id", attribute `http.route`), which
 * the Express instrumentation used to do at the price of a span per middleware layer (docs/PERFORMANCE.md, #16).
 */
export function nameServerSpan(method: string, route: string): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute("http.route", route);
  span.updateName(`${method.toUpperCase()} ${route}`);
}
