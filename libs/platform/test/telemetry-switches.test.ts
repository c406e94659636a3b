import { trace } from "@opentelemetry/api";
import { enabledInstrumentations, startTelemetry, stopTelemetry } from "@study/platform/telemetry";

describe("telemetry switches", () => {
  afterAll(() => stopTelemetry());

  it("registers every instrumentation unless OTEL_NODE_DISABLED_INSTRUMENTATIONS leaves some out", () => {
    expect(enabledInstrumentations({})).toEqual(["http", "pg", "amqplib", "prisma"]);
    expect(enabledInstrumentations({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: "pg, prisma" })).toEqual(["http", "amqplib"]);
  });

  it("starts nothing with OTEL_SDK_DISABLED=true: spans are not recorded and carry no trace id", () => {
    startTelemetry("telemetry-switches-test", { OTEL_SDK_DISABLED: "true" });
    const span = trace.getTracer("telemetry-switches-test").startSpan("GET /health/live");
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext().traceId).toBe("0".repeat(32));
    span.end();
  });
});
