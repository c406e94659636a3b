import { Writable } from "node:stream";
import { Metadata, status, type ServerUnaryCall, type ServiceError } from "@grpc/grpc-js";
import { courses as api } from "@study/contracts";
import {
  checkHealth,
  createClient,
  ERROR_DETAIL_KEY,
  fromServiceError,
  MAX_MESSAGE_BYTES,
  serviceNameOf,
  startGrpcServer,
  toServiceError,
  unary,
  type RunningGrpcServer,
} from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { eventually, freePort } from "@study/testkit";

const logger = createLogger("test", "silent");

/** A controllable CoursesService: each test sets what getCourse does. */
function coursesImplementation(behaviour: { getCourse: (request: api.GetCourseRequest) => Promise<api.GetCourseResponse> }) {
  const calls: string[] = [];
  const notImplemented = async () => {
    throw new AppError("internal", "NOT_IMPLEMENTED", "not implemented in this test");
  };
  const implementation: api.CoursesServiceServer = {
    getCourse: unary(logger, "GetCourse", async (request: api.GetCourseRequest) => {
      calls.push(request.courseId);
      return behaviour.getCourse(request);
    }),
    createCourse: unary(logger, "CreateCourse", async (request: api.CreateCourseRequest) => ({
      course: { id: "new-id", userId: request.userId, name: request.name, code: request.code },
    })),
    listCourses: unary(logger, "ListCourses", notImplemented),
    updateCourse: unary(logger, "UpdateCourse", notImplemented),
    deleteCourse: unary(logger, "DeleteCourse", notImplemented),
    checkCourseOwnership: unary(logger, "CheckCourseOwnership", notImplemented),
    batchGetCourses: unary(logger, "BatchGetCourses", notImplemented),
  };
  return { implementation, calls };
}

const startServer = (implementation: api.CoursesServiceServer, port = 0) =>
  startGrpcServer({ host: "127.0.0.1", port, services: [{ definition: api.CoursesServiceService, implementation }], logger });

const newClient = (port: number, options?: { deadlineMs?: number; maxAttempts?: number }) =>
  createClient(api.CoursesServiceClient, api.CoursesServiceService, `127.0.0.1:${port}`, options);

/** The AppError a call failed with (fails the test when the call succeeds). */
const failure = (promise: Promise<unknown>): Promise<AppError> =>
  promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(AppError);
      return error as AppError;
    },
  );

const course = (id: string): api.Course => ({ id, userId: "alice", name: `Course ${id}` });

describe("gRPC server and client", () => {
  let behaviour: { getCourse: (request: api.GetCourseRequest) => Promise<api.GetCourseResponse> };
  let calls: string[];
  let server: RunningGrpcServer;
  let client: ReturnType<typeof newClient>;

  beforeAll(async () => {
    behaviour = { getCourse: async (request) => ({ course: course(request.courseId) }) };
    const built = coursesImplementation({ getCourse: (request) => behaviour.getCourse(request) });
    calls = built.calls;
    server = await startServer(built.implementation);
    client = newClient(server.port, { deadlineMs: 2_000 });
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
  });
  beforeEach(() => {
    calls.length = 0;
    behaviour.getCourse = async (request) => ({ course: course(request.courseId) });
  });

  it("binds port 0 to a real port and answers typed calls", async () => {
    expect(server.port).toBeGreaterThan(0);
    expect(await client.getCourse({ userId: "alice", courseId: "c1" })).toEqual({ course: course("c1") });
    expect(await client.createCourse({ userId: "bob", name: "Botany", code: "BIO1" })).toEqual({
      course: { id: "new-id", userId: "bob", name: "Botany", code: "BIO1" },
    });
  });

  it(`carries messages far above grpc-js's 4 MB default both ways, up to MAX_MESSAGE_BYTES (${MAX_MESSAGE_BYTES / 2 ** 20} MiB), and refuses larger`, async () => {
    const big = "x".repeat(8 * 2 ** 20);
    // Megabytes take a while to encode on a busy machine: more than the suite client's 2 s default deadline.
    const slow = { deadlineMs: 30_000 };
    behaviour.getCourse = async (request) => ({ course: { ...course(request.courseId), name: big } });
    expect((await client.getCourse({ userId: "alice", courseId: big }, slow))?.course?.name).toHaveLength(big.length);
    expect(calls).toEqual([big]);
    // A request above the limit is refused by the sending client (RESOURCE_EXHAUSTED: a fault of the caller's,
    // so an internal error), before anything reaches the server.
    const refused = await failure(client.getCourse({ userId: "alice", courseId: "y".repeat(MAX_MESSAGE_BYTES) }, slow));
    expect(refused).toMatchObject({ kind: "internal", code: "INTERNAL_ERROR" });
    expect((refused.cause as ServiceError).code).toBe(status.RESOURCE_EXHAUSTED);
    expect(calls).toHaveLength(1);
  });

  it("delivers an AppError to the caller with kind, code, message, details and action intact", async () => {
    behaviour.getCourse = async () => {
      throw new AppError("not_found", "NOT_FOUND", "Course c9 not found", {
        details: [
          { field: "courseId", message: "no such course" },
          { field: "userId", message: "does not own it" },
        ],
        action: "Pick another course",
      });
    };
    const error = await failure(client.getCourse({ userId: "alice", courseId: "c9" }));
    expect(error).toMatchObject({
      name: "AppError",
      kind: "not_found",
      code: "NOT_FOUND",
      message: "Course c9 not found",
      details: [
        { field: "courseId", message: "no such course" },
        { field: "userId", message: "does not own it" },
      ],
      action: "Pick another course",
    });
    // Not retried: only UNAVAILABLE is.
    expect(calls).toEqual(["c9"]);
  });

  it.each([
    ["validation", "VALIDATION_ERROR"],
    ["unauthenticated", "UNAUTHORIZED"],
    ["forbidden", "FORBIDDEN"],
    ["conflict", "ALREADY_EXISTS"],
    ["precondition", "NOT_PENDING"],
    ["too_large", "FILE_TOO_LARGE"],
    ["rate_limited", "RATE_LIMITED"],
    ["upstream", "GOOGLE_CALENDAR_SYNC_ERROR"],
    ["timeout", "UPSTREAM_TIMEOUT"],
  ] as const)("keeps kind %s across the wire", async (kind, code) => {
    behaviour.getCourse = async () => {
      throw new AppError(kind, code, `refused: ${kind}`);
    };
    const error = await failure(client.getCourse({ userId: "alice", courseId: "x" }));
    expect(error).toMatchObject({ kind, code, message: `refused: ${kind}`, details: [] });
    expect(error.action).toBeUndefined();
  });

  it("turns a plain Error into a generic INTERNAL_ERROR without leaking its message", async () => {
    behaviour.getCourse = async () => {
      throw new Error("password=hunter2 at db.internal:5432");
    };
    const error = await failure(client.getCourse({ userId: "alice", courseId: "c1" }));
    expect(error).toMatchObject({ kind: "internal", code: "INTERNAL_ERROR", message: "An unexpected error occurred", details: [] });
    expect(JSON.stringify({ ...error, message: error.message, cause: String(error.cause) })).not.toContain("hunter2");
  });

  it("gives kind timeout / UPSTREAM_TIMEOUT when the handler is slower than the deadline", async () => {
    let release!: () => void;
    behaviour.getCourse = () =>
      new Promise((resolve) => {
        release = () => resolve({ course: course("late") });
      });
    const started = Date.now();
    const error = await failure(client.getCourse({ userId: "alice", courseId: "slow" }, { deadlineMs: 150 }));
    expect(error).toMatchObject({ kind: "timeout", code: "UPSTREAM_TIMEOUT", message: "The CoursesService service did not answer in time" });
    expect(Date.now() - started).toBeLessThan(1_500);
    release();
    // The server is still fine afterwards.
    behaviour.getCourse = async (request) => ({ course: course(request.courseId) });
    expect((await client.getCourse({ userId: "alice", courseId: "c2" })).course?.id).toBe("c2");
  });

  it("applies the client's default deadline", async () => {
    const quick = newClient(server.port, { deadlineMs: 100 });
    let release!: () => void;
    behaviour.getCourse = () => new Promise((resolve) => (release = () => resolve({ course: course("late") })));
    try {
      expect(await failure(quick.getCourse({ userId: "alice", courseId: "slow" }))).toMatchObject({ code: "UPSTREAM_TIMEOUT" });
    } finally {
      release();
      quick.close();
    }
  });

  it("retries a call the server answers with UNAVAILABLE, up to maxAttempts", async () => {
    let refusals = 2;
    behaviour.getCourse = async (request) => {
      if (refusals-- > 0) throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "warming up");
      return { course: course(request.courseId) };
    };
    // Two refusals, then an answer: one call for the caller, three for the server.
    expect(await client.getCourse({ userId: "alice", courseId: "r1" })).toEqual({ course: course("r1") });
    expect(calls).toEqual(["r1", "r1", "r1"]);

    calls.length = 0;
    behaviour.getCourse = async () => {
      throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "still down");
    };
    const twoAttempts = newClient(server.port, { maxAttempts: 2 });
    try {
      const error = await failure(twoAttempts.getCourse({ userId: "alice", courseId: "r2" }));
      expect(error).toMatchObject({ kind: "unavailable", code: "SERVICE_UNAVAILABLE", message: "still down" });
      expect(calls).toEqual(["r2", "r2"]);
    } finally {
      twoAttempts.close();
    }
  });

  it("checkHealth reports SERVING for the server and each of its services, and UNREACHABLE for an unknown service", async () => {
    const address = `127.0.0.1:${server.port}`;
    expect(await checkHealth(address)).toBe("SERVING");
    expect(await checkHealth(address, "study.courses.v1.CoursesService")).toBe("SERVING");
    // The health service answers NOT_FOUND for an unknown service; checkHealth reports any failure as UNREACHABLE.
    expect(await checkHealth(address, "study.unknown.v1.Nope")).toBe("UNREACHABLE");
  });
});

describe("gRPC server shutdown and unreachable servers", () => {
  it("marks every service NOT_SERVING before draining, then becomes unreachable", async () => {
    let release!: () => void;
    const { implementation } = coursesImplementation({
      getCourse: (request) => new Promise((resolve) => (release = () => resolve({ course: course(request.courseId) }))),
    });
    const server = await startServer(implementation);
    const address = `127.0.0.1:${server.port}`;
    const client = newClient(server.port);
    expect(await checkHealth(address)).toBe("SERVING");

    // Hold the real shutdown back until the health status has been checked.
    const realTryShutdown = server.server.tryShutdown.bind(server.server);
    let proceed!: () => void;
    const held = new Promise<void>((resolve) => (proceed = resolve));
    let shutdownStarted!: () => void;
    const draining = new Promise<void>((resolve) => (shutdownStarted = resolve));
    jest.spyOn(server.server, "tryShutdown").mockImplementation((callback) => {
      void held.then(() => {
        realTryShutdown(callback);
        shutdownStarted();
      });
    });

    // One call in flight when the shutdown starts: it must still be answered (drain).
    const inFlight = client.getCourse({ userId: "alice", courseId: "draining" });
    await eventually(async () => release !== undefined);
    const stopped = server.shutdown();
    expect(await checkHealth(address)).toBe("NOT_SERVING");
    expect(await checkHealth(address, serviceNameOf(api.CoursesServiceService))).toBe("NOT_SERVING");

    proceed();
    await draining; // the server is shutting down with the call still in flight
    release();
    expect((await inFlight).course?.id).toBe("draining");
    await stopped;
    expect(await checkHealth(address)).toBe("UNREACHABLE");
    client.close();
  });

  it("gives kind unavailable / SERVICE_UNAVAILABLE and UNREACHABLE health for a port with nothing listening", async () => {
    const port = await freePort();
    const client = newClient(port, { deadlineMs: 3_000 });
    try {
      const started = Date.now();
      const error = await failure(client.getCourse({ userId: "alice", courseId: "c1" }));
      expect(error).toMatchObject({ kind: "unavailable", code: "SERVICE_UNAVAILABLE", message: "The CoursesService service is unavailable" });
      // Failed fast after its retries, well before the deadline.
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      client.close();
    }
    expect(await checkHealth(`127.0.0.1:${port}`)).toBe("UNREACHABLE");
  });

  it("a client created before its server connects lazily, and a client that failed recovers without being recreated", async () => {
    const port = await freePort();
    const { implementation } = coursesImplementation({ getCourse: async (request) => ({ course: course(request.courseId) }) });

    // Created first, first call after the server is up: no connection was attempted before.
    const early = newClient(port);
    const first = await startServer(implementation, port);
    expect(first.port).toBe(port);
    expect((await early.getCourse({ userId: "alice", courseId: "lazy" })).course?.id).toBe("lazy");
    early.close();
    await first.shutdown();

    // This client's call fails while nothing listens; once the server is back, the same client succeeds.
    const client = newClient(port, { deadlineMs: 1_000 });
    expect(await failure(client.getCourse({ userId: "alice", courseId: "down" }))).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    const second = await startServer(implementation, port);
    try {
      const answer = await eventually(() => client.getCourse({ userId: "alice", courseId: "back" }), 8_000, 100);
      expect(answer.course?.id).toBe("back");
    } finally {
      client.close();
      await second.shutdown();
    }
  });
});

describe("unary handler adapter", () => {
  /** Runs a unary handler the way grpc-js would, with a logger whose lines are captured. */
  async function invoke(handler: () => Promise<api.GetCourseResponse>) {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const adapted = unary(createLogger("courses", "debug", destination), "GetCourse", handler);
    const call = { request: { userId: "alice", courseId: "c1" } } as ServerUnaryCall<api.GetCourseRequest, api.GetCourseResponse>;
    const result = await new Promise<{ error: Partial<ServiceError> | null; response?: api.GetCourseResponse }>((resolve) =>
      adapted(call, (error, response) => resolve({ error: error as Partial<ServiceError> | null, response: response ?? undefined })),
    );
    await new Promise((r) => setImmediate(r));
    return { ...result, lines };
  }

  it("logs an unexpected error with its message on the server, and sends only a generic INTERNAL", async () => {
    const { error, lines } = await invoke(async () => {
      throw new Error('relation "course" does not exist');
    });
    expect(error).toMatchObject({ code: status.INTERNAL, details: "An unexpected error occurred" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "error",
      method: "GetCourse",
      msg: "request failed",
      err: { message: 'relation "course" does not exist' },
    });
  });

  it("logs an expected refusal at debug level with its code only", async () => {
    const { error, lines } = await invoke(async () => {
      throw AppError.notFound("Course");
    });
    expect(error).toMatchObject({ code: status.NOT_FOUND, details: "Course not found" });
    expect(lines).toEqual([expect.objectContaining({ level: "debug", method: "GetCourse", code: "NOT_FOUND", msg: "request refused" })]);
  });

  it("passes a successful response through", async () => {
    const { error, response, lines } = await invoke(async () => ({ course: course("c1") }));
    expect(error).toBeNull();
    expect(response).toEqual({ course: course("c1") });
    expect(lines).toEqual([]);
  });
});

describe("error mapping", () => {
  it("toServiceError carries the AppError in the status and the trailing metadata", () => {
    const error = toServiceError(new AppError("conflict", "EMAIL_TAKEN", "Email already registered", { action: "Sign in" }));
    expect(error.code).toBe(status.ALREADY_EXISTS);
    expect(error.details).toBe("Email already registered");
    expect(error.metadata?.get(ERROR_DETAIL_KEY)[0]).toBeInstanceOf(Buffer);
    expect(fromServiceError(error as ServiceError, "Identity")).toMatchObject({
      kind: "conflict",
      code: "EMAIL_TAKEN",
      message: "Email already registered",
      action: "Sign in",
    });
  });

  it("toServiceError hides anything that is not an AppError", () => {
    const error = toServiceError(new TypeError("cannot read properties of undefined (reading 'secret')"));
    expect(error.code).toBe(status.INTERNAL);
    expect(error.details).toBe("An unexpected error occurred");
  });

  it("fromServiceError maps transport failures without error detail", () => {
    const bare = (code: status): ServiceError => Object.assign(new Error("transport"), { code, details: "transport", metadata: new Metadata() });
    expect(fromServiceError(bare(status.UNAVAILABLE), "Courses")).toMatchObject({ kind: "unavailable", code: "SERVICE_UNAVAILABLE" });
    expect(fromServiceError(bare(status.DEADLINE_EXCEEDED), "Courses")).toMatchObject({ kind: "timeout", code: "UPSTREAM_TIMEOUT" });
    expect(fromServiceError(bare(status.UNIMPLEMENTED), "Courses")).toMatchObject({ kind: "internal", code: "INTERNAL_ERROR" });
    expect(fromServiceError(bare(status.UNAVAILABLE), "Courses").cause).toBeInstanceOf(Error);
  });

  it("serviceNameOf reads the fully qualified service name", () => {
    expect(serviceNameOf(api.CoursesServiceService)).toBe("study.courses.v1.CoursesService");
  });
});
