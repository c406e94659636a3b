import { courses as api, indexing } from "@study/contracts";
import { createClient } from "@study/grpc";
import { AppError } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { captureEvents, createTestDatabase, testRabbitMqUrl, uniqueSuffix, type EventCapture } from "@study/testkit";
import { coursesService } from "../../src/service";

describe("courses service over gRPC, with PostgreSQL and RabbitMQ", () => {
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.CoursesServiceClient>>;
  let source: ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>;
  let capture: EventCapture;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("courses", migrationSources(coursesService));
    const exchange = `test.${uniqueSuffix()}`;
    capture = await captureEvents(testRabbitMqUrl(), exchange, "courses.#");
    service = await startService(coursesService, {
      handleSignals: false,
      env: { DATABASE_URL: databaseUrl, RABBITMQ_URL: testRabbitMqUrl(), GRPC_PORT: "0", EVENT_EXCHANGE: exchange, LOG_LEVEL: "silent" },
    });
    client = createClient(api.CoursesServiceClient, api.CoursesServiceService, `127.0.0.1:${service.grpcPort}`);
    source = createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, `127.0.0.1:${service.grpcPort}`);
  });

  afterAll(async () => {
    client.close();
    source.close();
    await service.lifecycle.stop();
    await capture.close();
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code, details: error.details }),
    );

  it("creates, reads, lists, updates and deletes a course, announcing each change", async () => {
    const { course } = await client.createCourse({ userId: "alice", name: "Cell Biology", code: "BIO201", color: "#22c55e", semester: "Fall 2026" });
    expect(course).toMatchObject({ userId: "alice", name: "Cell Biology", code: "BIO201", semester: "Fall 2026" });

    const created = await capture.next("courses.course.created.v1");
    expect(created).toMatchObject({ source: "courses", userId: "alice" });
    expect(created.payload).toEqual({
      $case: "courseCreated",
      value: expect.objectContaining({ course: expect.objectContaining({ id: course!.id, name: "Cell Biology" }) }),
    });
    expect(created.payload?.value).toMatchObject({
      searchable: { type: indexing.SearchableType.SEARCHABLE_TYPE_COURSE, id: course!.id, title: "Cell Biology", updatedAt: course!.updatedAt },
    });

    expect((await client.getCourse({ userId: "alice", courseId: course!.id })).course?.name).toBe("Cell Biology");

    const updated = await client.updateCourse({ userId: "alice", courseId: course!.id, name: "Cell Biology II", clearFields: ["semester"] });
    expect(updated.course).toMatchObject({ name: "Cell Biology II", code: "BIO201", semester: undefined });
    const updatedEvent = await capture.next("courses.course.updated.v1");
    expect(updatedEvent.payload).toMatchObject({ value: { course: { name: "Cell Biology II" } } });
    expect(updatedEvent.payload?.value).toMatchObject({
      searchable: {
        title: "Cell Biology II",
        keywords: ["BIO201"],
        metadata: { code: "BIO201", color: "#22c55e" },
        updatedAt: updated.course!.updatedAt,
      },
    });
    expect(updated.course!.updatedAt!.getTime()).toBeGreaterThan(course!.updatedAt!.getTime());

    const list = await client.listCourses({ userId: "alice", page: { limit: 10, offset: 0 } });
    expect(list.courses.map((c) => c.id)).toEqual([course!.id]);
    expect(list.page).toEqual({ limit: 10, offset: 0, total: 1, hasMore: false });

    await client.deleteCourse({ userId: "alice", courseId: course!.id });
    expect((await capture.next("courses.course.deleted.v1")).payload).toEqual({
      $case: "courseDeleted",
      value: { courseId: course!.id, name: "Cell Biology II" },
    });
    expect(await refusal(client.getCourse({ userId: "alice", courseId: course!.id }))).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
  });

  it("answers NOT_FOUND for another user's course, for every operation", async () => {
    const { course } = await client.createCourse({ userId: "alice", name: "Private" });
    const courseId = course!.id;
    const notFound = { kind: "not_found", code: "NOT_FOUND" };
    expect(await refusal(client.getCourse({ userId: "bob", courseId }))).toMatchObject(notFound);
    expect(await refusal(client.updateCourse({ userId: "bob", courseId, name: "Mine", clearFields: [] }))).toMatchObject(notFound);
    expect(await refusal(client.deleteCourse({ userId: "bob", courseId }))).toMatchObject(notFound);
    expect(await refusal(client.checkCourseOwnership({ userId: "bob", courseId }))).toMatchObject(notFound);
    expect(await refusal(client.getCourse({ userId: "alice", courseId: "not-a-uuid" }))).toMatchObject(notFound);
    expect((await client.checkCourseOwnership({ userId: "alice", courseId })).course).toMatchObject({ id: courseId, name: "Private" });
    expect((await client.listCourses({ userId: "bob", page: { limit: 20, offset: 0 } })).courses).toEqual([]);
  });

  it("returns only the caller's courses from a batch, skipping unknown and malformed ids", async () => {
    const a = (await client.createCourse({ userId: "carol", name: "Algebra", emoji: "📐" })).course!;
    const b = (await client.createCourse({ userId: "carol", name: "Botany" })).course!;
    const foreign = (await client.createCourse({ userId: "dave", name: "Chemistry" })).course!;
    const { courses } = await client.batchGetCourses({ userId: "carol", courseIds: [a.id, b.id, foreign.id, "junk", a.id] });
    expect(courses.map((c) => c.name).sort()).toEqual(["Algebra", "Botany"]);
    expect(courses.find((c) => c.id === a.id)).toMatchObject({ emoji: "📐" });
  });

  it("rejects invalid input with field details and paginates", async () => {
    expect(await refusal(client.createCourse({ userId: "erin", name: "", color: "rgb(1,2,3)" }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "name", message: "must not be empty" },
        { field: "color", message: "must be a hex code (#RRGGBB) or a color name" },
      ],
    });
    for (const name of ["A", "B", "C"]) await client.createCourse({ userId: "erin", name });
    const page = await client.listCourses({ userId: "erin", page: { limit: 2, offset: 2 } });
    expect(page.courses.map((c) => c.name)).toEqual(["A"]);
    expect(page.page).toEqual({ limit: 2, offset: 2, total: 3, hasMore: false });
    const firstPage = await client.listCourses({ userId: "erin", page: { limit: 2, offset: 0 } });
    expect(firstPage.courses.map((c) => c.name)).toEqual(["C", "B"]);
    expect(firstPage.page).toEqual({ limit: 2, offset: 0, total: 3, hasMore: true });
    // Past the end: no rows, the total still right.
    expect((await client.listCourses({ userId: "erin", page: { limit: 2, offset: 10 } })).page).toEqual({
      limit: 2,
      offset: 10,
      total: 3,
      hasMore: false,
    });
    expect((await client.listCourses({ userId: "nobody", page: { limit: 2, offset: 0 } })).page).toEqual({
      limit: 2,
      offset: 0,
      total: 0,
      hasMore: false,
    });
    await client.createCourse({ userId: "erin", name: "Spring one", semester: "Spring 2027" });
    const spring = await client.listCourses({ userId: "erin", semester: "Spring 2027", page: { limit: 10, offset: 0 } });
    expect(spring.courses.map((c) => c.name)).toEqual(["Spring one"]);
    expect(spring.page.total).toBe(1);
    expect(await refusal(client.listCourses({ userId: "erin", page: { limit: 101, offset: 0 } }))).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("lists searchables over SearchableSourceService: paged in id order, all users or one, another user's never in one's", async () => {
    const owner = `owner-${uniqueSuffix()}`;
    const other = `other-${uniqueSuffix()}`;
    const mine: string[] = [];
    for (const name of ["Algebra", "Botany", "Chemistry", "Drama", "Economics"]) {
      mine.push((await client.createCourse({ userId: owner, name, code: `${name.slice(0, 3).toUpperCase()}101` })).course!.id);
    }
    const theirs = (await client.createCourse({ userId: other, name: "Forestry" })).course!.id;

    const pages: indexing.Searchable[][] = [];
    let pageToken = "";
    do {
      const page = await source.listSearchables({ userId: owner, pageToken, pageSize: 2 });
      pages.push(page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    const listed = pages.flat();
    expect(listed.map((s) => s.id)).toEqual([...mine].sort());
    expect(listed.every((s) => s.userId === owner && s.type === indexing.SearchableType.SEARCHABLE_TYPE_COURSE)).toBe(true);
    expect(listed.find((s) => s.title === "Botany")).toMatchObject({ courseId: mine[1], keywords: ["BOT101"], metadata: { code: "BOT101" } });
    expect(listed.map((s) => s.id)).not.toContain(theirs);

    // Without a user: everyone's courses, this test's among them, in id order across pages.
    const everyone: indexing.Searchable[] = [];
    pageToken = "";
    do {
      const page = await source.listSearchables({ pageToken, pageSize: 3 });
      everyone.push(...page.searchables);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    const ids = everyone.map((s) => s.id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...mine, theirs]));

    expect(await refusal(source.listSearchables({ pageToken: "not a token", pageSize: 0 }))).toMatchObject({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    expect(await refusal(source.listSearchables({ pageToken: "", pageSize: 1001 }))).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR" });
  });
});
