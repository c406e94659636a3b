import { Writable } from "node:stream";
import { context, trace, TraceFlags } from "@opentelemetry/api";
import { contextFromTraceHeaders, createLogger, currentTraceHeaders } from "@study/platform";
import { startTelemetry, stopTelemetry } from "@study/platform/telemetry";

/** A destination that keeps every line pino writes. */
function lineSink() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const INVALID_TRACE_ID = "0".repeat(32);

/** startTelemetry as a service runs it on a developer's machine: no OTLP endpoint, no span file. */
describe("telemetry without an exporter", () => {
  beforeAll(() => startTelemetry("telemetry-test", {}));
  afterAll(() => stopTelemetry());

  it("gives a request handled without a caller's trace context a real, sampled trace that its log lines carry", async () => {
    const { lines, stream } = lineSink();
    const logger = createLogger("telemetry-test", "info", stream);
    const tracer = trace.getTracer("telemetry-test");
    const handled = await tracer.startActiveSpan("GET /api/courses", async (span) => {
      logger.info("request handled");
      await flush();
      const outgoing = currentTraceHeaders();
      span.end();
      return { span, outgoing };
    });
    await flush();

    const { traceId, spanId, traceFlags } = handled.span.spanContext();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(INVALID_TRACE_ID);
    expect(traceFlags & TraceFlags.SAMPLED).toBe(TraceFlags.SAMPLED);
    expect(lines).toEqual([expect.objectContaining({ msg: "request handled", trace_id: traceId, span_id: spanId })]);
    // The context still leaves the process: a gRPC call or an event made here continues this trace.
    expect(handled.outgoing.traceparent).toBe(`00-${traceId}-${spanId}-01`);
  });

  it("continues a caller's W3C trace context, and the log lines carry the caller's trace id", async () => {
    const { lines, stream } = lineSink();
    const logger = createLogger("telemetry-test", "info", stream);
    const tracer = trace.getTracer("telemetry-test");
    const callerTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const incoming = contextFromTraceHeaders({ traceparent: `00-${callerTraceId}-00f067aa0ba902b7-01` });
    const span = tracer.startSpan("DeleteCourse", {}, incoming);
    context.with(trace.setSpan(incoming, span), () => logger.info("course deleted"));
    span.end();
    await flush();

    expect(span.isRecording()).toBe(false); // ended
    expect(span.spanContext().traceId).toBe(callerTraceId);
    expect(span.spanContext().spanId).not.toBe("00f067aa0ba902b7");
    expect(lines).toEqual([expect.objectContaining({ msg: "course deleted", trace_id: callerTraceId, span_id: span.spanContext().spanId })]);
  });

  it("records spans (attributes and events are kept while the span is open)", () => {
    const span = trace.getTracer("telemetry-test").startSpan("work");
    expect(span.isRecording()).toBe(true);
    span.end();
  });
});
