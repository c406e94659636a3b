import { isSpanContextValid, trace } from "@opentelemetry/api";
import pino, { type DestinationStream, type Logger } from "pino";

export type { Logger } from "pino";

/**
 * Structured JSON logs; every line carries the active trace and span ids. Written to stdout unless a
 * destination is given (tests capture lines with one).
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? "info", destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const spanContext = trace.getActiveSpan()?.spanContext();
      // An all-zero context (a span made without a tracer provider) correlates nothing: leave the ids out.
      if (!spanContext || !isSpanContextValid(spanContext)) return {};
      return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
