import { context, propagation, type Context } from "@opentelemetry/api";

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
