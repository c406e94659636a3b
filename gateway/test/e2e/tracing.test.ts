import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually, httpClient, startTestStack, type TestStack } from "@study/testkit";

interface ExportedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

/** One trace id follows a request from the gateway through gRPC, the outbox and RabbitMQ into a consumer. */
describe("distributed tracing", () => {
  let stack: TestStack;
  let dir: string;
  let tracesFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "study-traces-"));
    tracesFile = join(dir, "spans.jsonl");
    stack = await startTestStack({ services: ["courses", "notifications"], env: { OTEL_TRACES_EXPORT_FILE: tracesFile } });
  }, 120_000);

  afterAll(async () => {
    await stack?.stopAll();
    rmSync(dir, { recursive: true, force: true });
  });

  const spans = (): ExportedSpan[] =>
    existsSync(tracesFile)
      ? readFileSync(tracesFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as ExportedSpan)
      : [];

  it("covers the HTTP request, the gRPC call into courses, the outbox publish and the consumer in notifications", async () => {
    const api = httpClient(stack.gatewayUrl);
    const signUp = await api("POST", "/api/auth/signup", {
      body: { name: "Tracy", email: `tracy-${Date.now()}@example.com`, password: "correct horse battery" },
    });
    const token = signUp.body.session.token;
    const course = (await api("POST", "/api/courses", { token, body: { name: "Observability 101" } })).body.data;

    // The client starts the trace; every hop must continue it.
    const traceId = randomBytes(16).toString("hex");
    const deleted = await api("DELETE", `/api/courses/${course.id}`, {
      token,
      headers: { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` },
    });
    expect(deleted.status).toBe(200);

    const consumed = await eventually(
      async () => spans().find((s) => s.traceId === traceId && s.service === "notifications" && s.name === "process courses.course.deleted.v1"),
      15_000,
      100,
    );
    const trace = spans().filter((s) => s.traceId === traceId);
    const has = (service: string, predicate: (s: ExportedSpan) => boolean) => trace.some((s) => s.service === service && predicate(s));

    expect(has("gateway", (s) => s.kind === 1 && s.name === "DELETE /api/courses/:id")).toBe(true); // HTTP server span, named after its route
    expect(has("gateway", (s) => s.kind === 2 && s.name.includes("CoursesService/DeleteCourse"))).toBe(true); // gRPC client
    expect(has("courses", (s) => s.kind === 1 && s.name.includes("CoursesService/DeleteCourse"))).toBe(true); // gRPC server
    expect(has("courses", (s) => s.name === "publish courses.course.deleted.v1")).toBe(true); // outbox relay
    // The consumer descends from the relay's publish span (the context travelled in the message headers).
    const byId = new Map(trace.map((s) => [s.spanId, s]));
    const publish = trace.find((s) => s.name === "publish courses.course.deleted.v1")!;
    const ancestors: string[] = [];
    for (let span: ExportedSpan | undefined = consumed; span?.parentSpanId; span = byId.get(span.parentSpanId)) {
      ancestors.push(span.parentSpanId);
    }
    expect(ancestors).toContain(publish.spanId);

    // And the confirmation the consumer wrote is there.
    const notifications = (await api("GET", "/api/notifications", { token })).body.data.notifications;
    expect(notifications.map((n: { content: string }) => n.content)).toEqual(expect.arrayContaining([expect.stringContaining("Observability 101")]));
  }, 60_000);
});
