/**
 * OpenTelemetry set-up, done once per process before anything instrumented is loaded: a service's
 * `src/instrumentation.ts` calls `startTelemetry` and `main.ts` imports that file first.
 */
import { appendFileSync } from "node:fs";
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from "@opentelemetry/core";
import { AmqplibInstrumentation } from "@opentelemetry/instrumentation-amqplib";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { registerInstrumentations } from "@opentelemetry/instrumentation";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  NoopSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { PrismaInstrumentation } from "@prisma/instrumentation";

/** Writes each finished span as one JSON line; used for local debugging and the cross-process trace test. */
export class JsonLinesFileSpanExporter implements SpanExporter {
  constructor(
    private readonly file: string,
    private readonly service: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const lines = spans.map((span) =>
        JSON.stringify({
          service: this.service,
          name: span.name,
          kind: span.kind,
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
          parentSpanId: span.parentSpanContext?.spanId,
          attributes: span.attributes,
        }),
      );
      if (lines.length > 0) appendFileSync(this.file, `${lines.join("\n")}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }

  async shutdown(): Promise<void> {}
}

/**
 * The tracer provider and instrumentations of this process. Traces only, assembled from the trace SDK rather than
 * `@opentelemetry/sdk-node`: that package also loads every metrics and logs exporter (about 1 700 modules, a
 * second of start-up per process, measured) for pipelines this project does not use.
 */
let running: { provider: NodeTracerProvider; disableInstrumentations: () => void } | undefined;

const INSTRUMENTATIONS = {
  // Outgoing requests only: the server side is traceHttpRequests (./http-tracing), a fraction of the cost.
  http: () => new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
  // A span per query, not per connection taken from the pool (two more spans per query, noise in every trace).
  pg: () => new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
  amqplib: () => new AmqplibInstrumentation(),
  prisma: () => new PrismaInstrumentation(),
};
export type InstrumentationName = keyof typeof INSTRUMENTATIONS;

/**
 * The instrumentations a process registers: all of them, less those OTEL_NODE_DISABLED_INSTRUMENTATIONS names
 * (comma-separated, as in OpenTelemetry's auto-instrumentation package) — to measure, or leave out, one's cost.
 */
export function enabledInstrumentations(env: NodeJS.ProcessEnv): InstrumentationName[] {
  const disabled = new Set((env.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? "").split(/[,\s]+/u).filter(Boolean));
  return (Object.keys(INSTRUMENTATIONS) as InstrumentationName[]).filter((name) => !disabled.has(name));
}

export function startTelemetry(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (running) return;
  // OpenTelemetry's own switch: no provider, no instrumentation (for measuring what tracing costs).
  if (env.OTEL_SDK_DISABLED === "true") return;
  const spanProcessors: SpanProcessor[] = [];
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    // Loaded only when configured: the exporter brings ≈ 170 modules (OTLP transformer, protobufjs, metrics SDK)
    // that every process would otherwise load at start. Synchronous, before the instrumented modules load.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load must be synchronous here
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-grpc") as typeof import("@opentelemetry/exporter-trace-otlp-grpc");
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: env.OTEL_EXPORTER_OTLP_ENDPOINT })));
  }
  if (env.OTEL_TRACES_EXPORT_FILE) {
    spanProcessors.push(new SimpleSpanProcessor(new JsonLinesFileSpanExporter(env.OTEL_TRACES_EXPORT_FILE, serviceName)));
  }
  // Without any processor spans would still be recorded and dropped; a processor that drops finished spans says
  // so plainly. Either way the provider is registered: spans are real and sampled (ids in every log line, W3C
  // context propagated), so logs of one request can be correlated without an exporter.
  if (spanProcessors.length === 0) spanProcessors.push(new NoopSpanProcessor());
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors,
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const disableInstrumentations = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: enabledInstrumentations(env).map((name) => INSTRUMENTATIONS[name]()),
  });
  running = { provider, disableInstrumentations };
}

export async function stopTelemetry(): Promise<void> {
  if (!running) return;
  const { provider, disableInstrumentations } = running;
  running = undefined;
  disableInstrumentations();
  await provider.shutdown();
}
