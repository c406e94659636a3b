import { Writable } from "node:stream";
import { courses as api } from "@study/contracts";
import { bindUnaryHandlers, createClient, methodNameOf, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";

/** A logger whose lines the test can read. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger("test", "debug", stream) };
}

const course = (id: string, userId = "alice"): api.Course => ({ id, userId, name: `Course ${id}` });

describe("bindUnaryHandlers", () => {
  const { lines, logger } = capturedLogger();
  const deadlines: Array<Date | number> = [];
  let server: RunningGrpcServer;
  let client: ReturnType<typeof createClient<api.CoursesServiceClient>>;

  beforeAll(async () => {
    const notFound = () => new AppError("not_found", "NOT_FOUND", "Course not found");
    // No annotations: request and response types come from the definition.
    const implementation: api.CoursesServiceServer = bindUnaryHandlers(logger, api.CoursesServiceService, {
      createCourse: async (request) => ({ course: { ...course("new"), userId: request.userId, name: request.name } }),
      getCourse: async (request, call) => {
        deadlines.push(call.getDeadline());
        if (request.courseId === "boom") throw new Error("socket hang up at db.internal");
        if (request.courseId !== "c1") throw notFound();
        return { course: course(request.courseId, request.userId) };
      },
      listCourses: async (request) => ({ courses: [course("c1", request.userId)] }),
      updateCourse: async () => {
        throw notFound();
      },
      deleteCourse: async () => ({}),
      checkCourseOwnership: async (request) => ({ course: { id: request.courseId, name: "Course", code: "" } }),
      batchGetCourses: async (request) => ({ courses: request.courseIds.map((id) => ({ id, name: id, code: "" })) }),
    });
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [{ definition: api.CoursesServiceService, implementation }],
      logger: createLogger("test", "silent"),
    });
    client = createClient(api.CoursesServiceClient, api.CoursesServiceService, `127.0.0.1:${server.port}`);
  });
  afterAll(async () => {
    client.close();
    await server.shutdown();
  });
  beforeEach(() => {
    lines.length = 0;
  });

  it("serves every unary method through its handler, which also sees the call", async () => {
    expect(await client.getCourse({ userId: "bob", courseId: "c1" }, { deadlineMs: 3_000 })).toEqual({ course: course("c1", "bob") });
    const [deadline] = deadlines.slice(-1);
    expect(deadline instanceof Date ? deadline.getTime() : deadline).toBeGreaterThan(Date.now());
    expect(await client.createCourse({ userId: "bob", name: "Botany" })).toEqual({ course: { ...course("new"), userId: "bob", name: "Botany" } });
    expect(await client.listCourses({ userId: "bob" })).toMatchObject({ courses: [course("c1", "bob")] });
    expect(await client.deleteCourse({ userId: "bob", courseId: "c1" })).toEqual({});
    expect(await client.batchGetCourses({ userId: "bob", courseIds: ["a", "b"] })).toEqual({
      courses: [
        { id: "a", name: "a", code: "" },
        { id: "b", name: "b", code: "" },
      ],
    });
  });

  it("sends an AppError with its code and logs it as a refusal under the method's name", async () => {
    await expect(client.getCourse({ userId: "bob", courseId: "c9" })).rejects.toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    await expect(client.updateCourse({ userId: "bob", courseId: "c1", clearFields: [] })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(lines.map((line) => [line.level, line.msg, line.method, line.code])).toEqual([
      ["debug", "request refused", "GetCourse", "NOT_FOUND"],
      ["debug", "request refused", "UpdateCourse", "NOT_FOUND"],
    ]);
  });

  it("turns any other failure into INTERNAL_ERROR and logs it as an error with the cause", async () => {
    await expect(client.getCourse({ userId: "bob", courseId: "boom" })).rejects.toMatchObject({
      kind: "internal",
      code: "INTERNAL_ERROR",
      message: "An unexpected error occurred",
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: "error",
        msg: "request failed",
        method: "GetCourse",
        err: expect.objectContaining({ message: "socket hang up at db.internal" }),
      }),
    ]);
  });

  it("refuses at start-up a handler for a method the service does not have", () => {
    const handlers = { getCourse: async () => ({}), getCourses: async () => ({}) };
    // @ts-expect-error getCourses is not a method of CoursesService (and the other handlers are missing)
    expect(() => bindUnaryHandlers(logger, api.CoursesServiceService, handlers)).toThrow(
      "getCourses is not a unary method of study.courses.v1.CoursesService",
    );
  });

  it("names a method as the protocol does", () => {
    expect(methodNameOf(api.CoursesServiceService.checkCourseOwnership)).toBe("CheckCourseOwnership");
  });
});
