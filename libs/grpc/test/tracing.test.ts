import { SpanKind, SpanStatusCode, context, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { courses as api } from "@study/contracts";
import { bindUnaryHandlers, createClient, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";

const logger = createLogger("test", "silent");

/** Client and server spans of @study/grpc: one trace across the call, named and attributed as OpenTelemetry's. */
describe("gRPC call spans", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let server: RunningGrpcServer;
  let client: ReturnType<typeof createClient<api.CoursesServiceClient>>;
  /** The span the handler saw as active. */
  let handlerSpan: { traceId: string; spanId: string } | undefined;

  beforeAll(async () => {
    provider.register();
    const refuse = async (): Promise<never> => {
      throw new AppError("not_found", "NOT_FOUND", "no such course");
    };
    const implementation = bindUnaryHandlers(logger, api.CoursesServiceService, {
      getCourse: async (request) => {
        handlerSpan = trace.getActiveSpan()?.spanContext();
        if (request.courseId === "missing") return refuse();
        return { course: { id: request.courseId, userId: request.userId, name: "Tracing" } };
      },
      createCourse: refuse,
      listCourses: refuse,
      updateCourse: refuse,
      deleteCourse: refuse,
      checkCourseOwnership: refuse,
      batchGetCourses: refuse,
    });
    server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [{ definition: api.CoursesServiceService, implementation }], logger });
    client = createClient(api.CoursesServiceClient, api.CoursesServiceService, `127.0.0.1:${server.port}`);
  });

  afterAll(async () => {
    client.close();
    await server.shutdown();
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  beforeEach(() => {
    exporter.reset();
    handlerSpan = undefined;
  });

  const finished = (kind: SpanKind): ReadableSpan => {
    const span = exporter.getFinishedSpans().find((s) => s.kind === kind);
    if (!span) throw new Error(`no finished span of kind ${kind}`);
    return span;
  };

  it("continues the caller's trace: request span → client span → server span, in which the handler runs", async () => {
    const tracer = trace.getTracer("test");
    const outer = await tracer.startActiveSpan("GET /api/courses/:id", async (span) => {
      await client.getCourse({ userId: "u1", courseId: "c1" });
      span.end();
      return span.spanContext();
    });
    const clientSpan = finished(SpanKind.CLIENT);
    const serverSpan = finished(SpanKind.SERVER);
    expect(clientSpan.name).toBe("grpc.study.courses.v1.CoursesService/GetCourse");
    expect(serverSpan.name).toBe("grpc.study.courses.v1.CoursesService/GetCourse");
    expect(clientSpan.parentSpanContext?.spanId).toBe(outer.spanId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(new Set([clientSpan, serverSpan].map((s) => s.spanContext().traceId))).toEqual(new Set([outer.traceId]));
    expect(handlerSpan).toMatchObject({ traceId: outer.traceId, spanId: serverSpan.spanContext().spanId });
    for (const span of [clientSpan, serverSpan]) {
      expect(span.attributes).toMatchObject({
        "rpc.system": "grpc",
        "rpc.service": "study.courses.v1.CoursesService",
        "rpc.method": "GetCourse",
        "rpc.grpc.status_code": 0,
      });
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    }
  });

  it("ends both spans with the refusal's status", async () => {
    await expect(client.getCourse({ userId: "u1", courseId: "missing" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const span = finished(kind);
      expect(span.attributes["rpc.grpc.status_code"]).toBe(5); // NOT_FOUND
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    }
  });
});
