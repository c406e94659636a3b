import { Writable } from "node:stream";
import { context, INVALID_SPAN_CONTEXT, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { contextFromTraceHeaders, createLogger, currentTraceHeaders } from "@study/platform";

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

describe("createLogger and trace context", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("platform-test");

  beforeAll(() => {
    provider.register({ contextManager: new AsyncLocalStorageContextManager(), propagator: new W3CTraceContextPropagator() });
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("writes one JSON line per entry with service, level name, ISO time and fields", async () => {
    const { lines, stream } = lineSink();
    const logger = createLogger("courses", "info", stream);
    logger.info({ courseId: "c1" }, "course created");
    await flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ service: "courses", level: "info", courseId: "c1", msg: "course created" });
    expect(new Date(String(lines[0].time)).toISOString()).toBe(lines[0].time);
    expect(lines[0]).not.toHaveProperty("trace_id");
    expect(lines[0]).not.toHaveProperty("span_id");
  });

  it("adds the active span's trace_id and span_id, also across awaits", async () => {
    const { lines, stream } = lineSink();
    const logger = createLogger("courses", "info", stream);
    const ids = await tracer.startActiveSpan("handle request", async (span) => {
      logger.info("before await");
      await new Promise((resolve) => setTimeout(resolve, 5));
      const child = tracer.startSpan("child");
      context.with(trace.setSpan(context.active(), child), () => logger.warn("in child"));
      child.end();
      logger.info("after await");
      span.end();
      return { parent: span.spanContext(), child: child.spanContext() };
    });
    logger.info("outside");
    await flush();
    expect(ids.parent.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.map((l) => [l.msg, l.trace_id, l.span_id])).toEqual([
      ["before await", ids.parent.traceId, ids.parent.spanId],
      ["in child", ids.parent.traceId, ids.child.spanId],
      ["after await", ids.parent.traceId, ids.parent.spanId],
      ["outside", undefined, undefined],
    ]);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(expect.arrayContaining(["handle request", "child"]));
  });

  it("leaves the ids out under a span whose context is all zeros (made without a tracer provider)", async () => {
    const { lines, stream } = lineSink();
    const logger = createLogger("courses", "info", stream);
    context.with(trace.setSpan(context.active(), trace.wrapSpanContext(INVALID_SPAN_CONTEXT)), () => logger.info("no trace"));
    await flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty("trace_id");
    expect(lines[0]).not.toHaveProperty("span_id");
  });

  it("respects the level, and 'silent' writes nothing", async () => {
    const warnOnly = lineSink();
    const logger = createLogger("svc", "warn", warnOnly.stream);
    logger.info("dropped");
    logger.error("kept");
    const silent = lineSink();
    createLogger("svc", "silent", silent.stream).fatal("never");
    await flush();
    expect(warnOnly.lines.map((l) => [l.level, l.msg])).toEqual([["error", "kept"]]);
    expect(silent.lines).toEqual([]);
  });

  it("currentTraceHeaders gives the W3C traceparent of the active span, empty without one", () => {
    expect(currentTraceHeaders()).toEqual({ traceparent: "", tracestate: "" });
    tracer.startActiveSpan("op", (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(currentTraceHeaders()).toEqual({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: "" });
      span.end();
    });
  });

  it("contextFromTraceHeaders restores the remote parent so a new span joins the same trace", () => {
    const headers = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=abc" };
    const parent = trace.getSpanContext(contextFromTraceHeaders(headers));
    expect(parent).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", isRemote: true });
    expect(parent?.traceState?.get("vendor")).toBe("abc");

    const span = tracer.startSpan("consume", {}, contextFromTraceHeaders(headers));
    expect(span.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    span.end();

    expect(trace.getSpanContext(contextFromTraceHeaders({}))).toBeUndefined();
    expect(trace.getSpanContext(contextFromTraceHeaders({ traceparent: "garbage" }))).toBeUndefined();
  });
});
