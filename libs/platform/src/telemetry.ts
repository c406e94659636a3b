/**
 * OpenTelemetry set-up, done once per process before anything instrumented is loaded: a service's
 * `src/instrumentation.ts` calls `startTelemetry` and `main.ts` imports that file first.
 */
import { appendFileSync } from "node:fs";
import { ExportResultCode, W3CTraceContextPropagator, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { AmqplibInstrumentation } from "@opentelemetry/instrumentation-amqplib";
import { ExpressInstrumentation } from "@opentelemetry/instrumentation-express";
import { GrpcInstrumentation } from "@opentelemetry/instrumentation-grpc";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import {
  BatchSpanProcessor,
  NoopSpanProcessor,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
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

let sdk: NodeSDK | undefined;

export function startTelemetry(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (sdk) return;
  const spanProcessors: SpanProcessor[] = [];
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: env.OTEL_EXPORTER_OTLP_ENDPOINT })));
  }
  if (env.OTEL_TRACES_EXPORT_FILE) {
    spanProcessors.push(new SimpleSpanProcessor(new JsonLinesFileSpanExporter(env.OTEL_TRACES_EXPORT_FILE, serviceName)));
  }
  // Without any processor the SDK registers no tracer provider: spans would be non-recording with trace id 0…0
  // (or the caller's), so logs of one request could not be correlated. A processor that drops finished spans
  // keeps real, sampled spans (ids in every log line, W3C context propagated) and costs no export.
  if (spanProcessors.length === 0) spanProcessors.push(new NoopSpanProcessor());
  // Traces only: without these the SDK also builds metric and log pipelines with a default OTLP exporter that
  // nothing receives (measured: metrics recorded on every request; see docs/PERFORMANCE.md). The SDK reads
  // these from process.env itself.
  process.env.OTEL_METRICS_EXPORTER ??= "none";
  process.env.OTEL_LOGS_EXPORTER ??= "none";
  sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors,
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [
      new HttpInstrumentation(),
      new ExpressInstrumentation(),
      new GrpcInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new AmqplibInstrumentation(),
      new PrismaInstrumentation(),
    ],
  });
  sdk.start();
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
