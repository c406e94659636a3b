import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { inRequestContext, traceHttpRequests } from "@study/platform";
import express, { type Request } from "express";

/** The HTTP server span of traceHttpRequests, and the request's context restored after a parsed body. */
describe("traceHttpRequests", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: Server;
  let base: string;
  /** Trace ids the handlers saw as active, by path. */
  const seen: Record<string, { traceId: string; spanId: string }> = {};

  beforeAll(async () => {
    provider.register(); // with an AsyncLocalStorage context manager, as the services run
    const app = express();
    app.use(express.json());
    app.use((req, _res, next) => inRequestContext(req, next));
    const remember = (path: string) => {
      const active = trace.getActiveSpan()?.spanContext();
      if (active) seen[path] = { traceId: active.traceId, spanId: active.spanId };
    };
    app.get("/things/:id", (req, res) => {
      remember(req.path);
      res.json({ id: req.params.id });
    });
    app.post("/things", (req, res) => {
      // After the JSON body arrived ('end' of the request stream): a child of the request's span.
      trace.getTracer("test").startActiveSpan("store thing", (span) => {
        remember("/things");
        span.end();
      });
      res.status(201).json(req.body);
    });
    app.get("/broken", (_req, res) => {
      res.status(503).json({ code: "UNAVAILABLE" });
    });
    server = createServer(traceHttpRequests(app, { route: (request) => (request as Request).route?.path as string | undefined }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  beforeEach(() => exporter.reset());

  /** The finished server span of one request (it ends when the response closes, just after the client reads it). */
  async function serverSpan(): Promise<ReadableSpan> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const span = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER);
      if (span) return span;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("no server span finished");
  }

  it("continues the caller's trace, is named after the route and records the answer's status", async () => {
    const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    const response = await fetch(`${base}/things/42?secret=x`, {
      headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`, "user-agent": "tracing-test" },
    });
    expect(response.status).toBe(200);
    const span = await serverSpan();
    expect(span.name).toBe("GET /things/:id");
    expect(span.spanContext().traceId).toBe(callerTrace);
    expect(span.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(span.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/things/:id",
      "url.path": "/things/42",
      "http.response.status_code": 200,
      "user_agent.original": "tracing-test",
    });
    expect(JSON.stringify(span.attributes)).not.toContain("secret");
    expect(seen["/things/42"]).toEqual({ traceId: callerTrace, spanId: span.spanContext().spanId });
  });

  it("gives the work after a parsed body the request's span as parent", async () => {
    const response = await fetch(`${base}/things`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"x"}' });
    expect(response.status).toBe(201);
    const server = await serverSpan();
    const child = exporter.getFinishedSpans().find((s) => s.name === "store thing");
    expect(child?.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(child?.spanContext().traceId).toBe(server.spanContext().traceId);
  });

  it("marks a 5xx answer as an error", async () => {
    expect((await fetch(`${base}/broken`)).status).toBe(503);
    const span = await serverSpan();
    expect(span.name).toBe("GET /broken");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["http.response.status_code"]).toBe(503);
  });

  it("is named after the method alone when no route matched", async () => {
    expect((await fetch(`${base}/nowhere`)).status).toBe(404);
    const span = await serverSpan();
    expect(span.name).toBe("GET");
    expect(span.attributes["http.route"]).toBeUndefined();
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("records nothing for a caller that did not sample its trace, whose trace id still reaches the handler", async () => {
    const callerTrace = "0af7651916cd43dd8448eb211c80319c";
    await fetch(`${base}/things/7`, { headers: { traceparent: `00-${callerTrace}-b7ad6b7169203331-00` } });
    await fetch(`${base}/broken`); // a sampled request after it: its span is there, the unsampled one is not
    await serverSpan();
    expect(exporter.getFinishedSpans().map((s) => s.spanContext().traceId)).not.toContain(callerTrace);
    expect(seen["/things/7"].traceId).toBe(callerTrace);
  });
});
