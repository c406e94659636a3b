import { randomUUID } from "node:crypto";
import { indexing } from "@study/contracts";
import { EVENT_TYPES, type EventEnvelope } from "@study/events/envelope";
import { BatchGetCourses, MAX_BATCH } from "../../src/application/batch-get-courses";
import { CreateCourse } from "../../src/application/create-course";
import { DeleteCourse } from "../../src/application/delete-course";
import { GetCourse } from "../../src/application/get-course";
import { DEFAULT_PAGE_SIZE, ListCourses, MAX_PAGE_SIZE } from "../../src/application/list-courses";
import { ListSearchables } from "../../src/application/list-searchables";
import { DEFAULT_SEARCHABLE_PAGE_SIZE, encodePageToken } from "@study/platform/searchable-page";
import { UpdateCourse } from "../../src/application/update-course";
import type { Course, CourseAttributes, OptionalCourseField } from "../../src/domain/course";
import { InMemoryCourseRepository } from "./in-memory-course-repository";
import { refusal } from "@study/testkit/refusal";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const notFound = { kind: "not_found", code: "NOT_FOUND" };
const blank: CourseAttributes = { name: "", code: null, color: null, emoji: null, professor: null, semester: null, description: null };

let repository: InMemoryCourseRepository;
let useCases: ReturnType<typeof courseUseCases>;

function courseUseCases(courses: InMemoryCourseRepository) {
  const getCourse = new GetCourse(courses);
  return {
    createCourse: new CreateCourse(courses),
    getCourse,
    listCourses: new ListCourses(courses),
    updateCourse: new UpdateCourse(courses, getCourse),
    deleteCourse: new DeleteCourse(courses, getCourse),
    batchGetCourses: new BatchGetCourses(courses),
  };
}

beforeEach(() => {
  repository = new InMemoryCourseRepository();
  useCases = courseUseCases(repository);
});

const create = (userId: string, attributes: Partial<CourseAttributes> = {}) =>
  useCases.createCourse.execute(userId, { ...blank, name: "Cell Biology", ...attributes });

/** Stores a course created at the given time, without going through CreateCourse (no event). */
async function seed(userId: string, createdAt: Date, attributes: Partial<CourseAttributes> = {}): Promise<Course> {
  const course: Course = { ...blank, name: "Seeded", ...attributes, id: randomUUID(), userId, createdAt, updatedAt: createdAt };
  await repository.insert(course, []);
  return course;
}

/** The payload of an event of the given case, with the envelope's routing fields. */
function eventOf<C extends NonNullable<EventEnvelope["payload"]>["$case"]>(envelope: EventEnvelope, $case: C) {
  expect(envelope.payload?.$case).toBe($case);
  return {
    type: envelope.type,
    source: envelope.source,
    userId: envelope.userId,
    value: (envelope.payload as Extract<EventEnvelope["payload"], { $case: C }>).value,
  };
}

describe("CreateCourse", () => {
  it("stores the normalised course under a new UUIDv7 and emits courses.course.created.v1 with it", async () => {
    const before = Date.now();
    const course = await create("alice", { name: "  Cell Biology ", code: " BIO101 ", professor: "  ", semester: "Fall 2026", description: "Cells" });

    expect(course).toMatchObject({
      userId: "alice",
      name: "Cell Biology",
      code: "BIO101",
      professor: null,
      semester: "Fall 2026",
      description: "Cells",
    });
    expect(course.id).toMatch(UUID_V7);
    expect(course.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(course.updatedAt).toEqual(course.createdAt);
    expect(repository.all()).toEqual([course]);

    expect(repository.outbox).toHaveLength(1);
    expect(eventOf(repository.outbox[0], "courseCreated")).toEqual({
      type: EVENT_TYPES.courseCreated,
      source: "courses",
      userId: "alice",
      value: {
        course: {
          id: course.id,
          name: "Cell Biology",
          code: "BIO101",
          color: undefined,
          emoji: undefined,
          professor: undefined,
          semester: "Fall 2026",
        },
        description: "Cells",
        searchable: {
          type: indexing.SearchableType.SEARCHABLE_TYPE_COURSE,
          id: course.id,
          userId: "alice",
          courseId: course.id,
          title: "Cell Biology",
          keywords: ["BIO101", "Fall 2026"],
          description: "Cells",
          content: "",
          metadata: { code: "BIO101", semester: "Fall 2026" },
          createdAt: course.createdAt,
          updatedAt: course.createdAt,
        },
      },
    });
  });

  it("gives each course its own id, in creation order", async () => {
    const first = await create("alice");
    const second = await create("alice");
    expect(first.id).not.toBe(second.id);
    expect([second.id, first.id].sort()).toEqual([first.id, second.id]);
  });

  it("refuses invalid attributes with one detail per field, and stores and emits nothing", async () => {
    expect(await refusal(() => create("alice", { name: "   ", code: "x".repeat(51), color: "#12345" }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "name", message: "must not be empty" },
        { field: "code", message: "must be at most 50 characters" },
        { field: "color", message: "must be a hex code (#RRGGBB) or a color name" },
      ],
    });
    expect(repository.all()).toEqual([]);
    expect(repository.outbox).toEqual([]);
  });

  it("refuses a call without a user id as invalid input", async () => {
    expect(await refusal(() => create(""))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "userId", message: "is required" }],
    });
    expect(repository.all()).toEqual([]);
  });
});

describe("GetCourse (also the ownership check)", () => {
  it("returns the user's course", async () => {
    const course = await create("alice", { emoji: "🧬" });
    expect(await useCases.getCourse.execute("alice", course.id)).toEqual(course);
  });

  it("answers NOT_FOUND alike for another user's course, an unknown id and an id that is not a UUID", async () => {
    const course = await create("alice");
    expect(await refusal(() => useCases.getCourse.execute("bob", course.id))).toMatchObject(notFound);
    expect(await refusal(() => useCases.getCourse.execute("alice", randomUUID()))).toMatchObject(notFound);
    expect(await refusal(() => useCases.getCourse.execute("alice", "not-a-uuid"))).toMatchObject(notFound);
  });

  it("refuses a missing user id before looking", async () => {
    const course = await create("alice");
    expect(await refusal(() => useCases.getCourse.execute("", course.id))).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR" });
  });
});

describe("ListCourses", () => {
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

  it("lists only the user's courses, newest first, with the total and the page applied", async () => {
    const oldest = await seed("alice", minutesAgo(3));
    const middle = await seed("alice", minutesAgo(2));
    const newest = await seed("alice", minutesAgo(1));
    await seed("bob", minutesAgo(1));

    const all = await useCases.listCourses.execute("alice", {});
    expect(all.courses.map((c) => c.id)).toEqual([newest.id, middle.id, oldest.id]);
    expect(all).toMatchObject({ total: 3, limit: DEFAULT_PAGE_SIZE, offset: 0 });

    const second = await useCases.listCourses.execute("alice", { limit: 1, offset: 1 });
    expect(second.courses.map((c) => c.id)).toEqual([middle.id]);
    expect(second).toMatchObject({ total: 3, limit: 1, offset: 1 });

    const past = await useCases.listCourses.execute("alice", { limit: 2, offset: 5 });
    expect(past).toMatchObject({ courses: [], total: 3, limit: 2, offset: 5 });

    expect((await useCases.listCourses.execute("carol", {})).total).toBe(0);
  });

  it("filters by semester (the total counts the filtered courses)", async () => {
    const fall = await seed("alice", minutesAgo(2), { semester: "Fall 2026" });
    await seed("alice", minutesAgo(1), { semester: "Spring 2027" });
    await seed("alice", minutesAgo(1));
    const page = await useCases.listCourses.execute("alice", { semester: "Fall 2026" });
    expect(page.courses.map((c) => c.id)).toEqual([fall.id]);
    expect(page.total).toBe(1);
  });

  it("takes an absent or zero limit (proto3's default) as the default page size", async () => {
    expect(await useCases.listCourses.execute("alice", { limit: 0 })).toMatchObject({ limit: DEFAULT_PAGE_SIZE, offset: 0 });
  });

  it.each([
    [{ limit: MAX_PAGE_SIZE + 1 }, { field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }],
    [{ limit: -1 }, { field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }],
    [{ offset: -1 }, { field: "offset", message: "must be 0 or more" }],
  ])("refuses %j with the field's detail", async (query, detail) => {
    expect(await refusal(() => useCases.listCourses.execute("alice", query))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [detail],
    });
  });

  it("accepts the largest page size", async () => {
    expect((await useCases.listCourses.execute("alice", { limit: MAX_PAGE_SIZE })).limit).toBe(MAX_PAGE_SIZE);
  });
});

describe("UpdateCourse", () => {
  /** The gRPC adapter passes clear_fields through as sent; the domain rejects names that are not clearable. */
  const clearFieldsFromWire = (fields: string[]) => fields as OptionalCourseField[];

  it("sets the given fields, clears the named ones, keeps the rest, and emits courses.course.updated.v1", async () => {
    const course = await create("alice", { code: "BIO101", professor: "Dr. Hooke", description: "Cells" });
    repository.outbox.length = 0;

    const updated = await useCases.updateCourse.execute("alice", course.id, {
      set: { name: " Molecular Biology ", semester: "Spring 2027" },
      clear: ["professor"],
    });
    expect(updated).toMatchObject({
      id: course.id,
      userId: "alice",
      name: "Molecular Biology",
      code: "BIO101",
      professor: null,
      semester: "Spring 2027",
      description: "Cells",
      createdAt: course.createdAt,
    });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(course.updatedAt.getTime());
    expect(await useCases.getCourse.execute("alice", course.id)).toEqual(updated);

    expect(repository.outbox).toHaveLength(1);
    expect(eventOf(repository.outbox[0], "courseUpdated")).toEqual({
      type: EVENT_TYPES.courseUpdated,
      source: "courses",
      userId: "alice",
      value: {
        course: {
          id: course.id,
          name: "Molecular Biology",
          code: "BIO101",
          color: undefined,
          emoji: undefined,
          professor: undefined,
          semester: "Spring 2027",
        },
        description: "Cells",
        // The course after the change, at its new version.
        searchable: {
          type: indexing.SearchableType.SEARCHABLE_TYPE_COURSE,
          id: course.id,
          userId: "alice",
          courseId: course.id,
          title: "Molecular Biology",
          keywords: ["BIO101", "Spring 2027"],
          description: "Cells",
          content: "",
          metadata: { code: "BIO101", semester: "Spring 2027" },
          createdAt: course.createdAt,
          updatedAt: updated.updatedAt,
        },
      },
    });
  });

  it("moves updatedAt past the previous version even within the same millisecond", async () => {
    const course = await create("alice");
    const first = await useCases.updateCourse.execute("alice", course.id, { set: { name: "One" }, clear: [] });
    const second = await useCases.updateCourse.execute("alice", course.id, { set: { name: "Two" }, clear: [] });
    expect(first.updatedAt.getTime()).toBeGreaterThan(course.updatedAt.getTime());
    expect(second.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
    const versions = repository.outbox.flatMap(({ payload }) =>
      payload?.$case === "courseUpdated" ? [payload.value.searchable?.updatedAt?.getTime()] : [],
    );
    expect(versions).toEqual([first.updatedAt.getTime(), second.updatedAt.getTime()]);
  });

  it("gives a change based on an older read a version after the stored one, and announces that version", async () => {
    const course = await create("alice");
    const staleRead = await useCases.getCourse.execute("alice", course.id);
    // Another instance, its clock a minute ahead, changed the course meanwhile.
    const ahead = new Date(Date.now() + 60_000);
    await repository.update({ ...course, name: "Elsewhere", updatedAt: ahead }, () => []);
    class StaleRead extends GetCourse {
      override async execute(): Promise<Course> {
        return staleRead;
      }
    }
    repository.outbox.length = 0;
    const saved = await new UpdateCourse(repository, new StaleRead(repository)).execute("alice", course.id, { set: { name: "Here" }, clear: [] });
    expect(saved.updatedAt.getTime()).toBe(ahead.getTime() + 1);
    expect(await useCases.getCourse.execute("alice", course.id)).toEqual(saved);
    expect(eventOf(repository.outbox[0], "courseUpdated").value).toMatchObject({ searchable: { title: "Here", updatedAt: saved.updatedAt } });
  });

  it("answers NOT_FOUND when the course is deleted between the read and the write, announcing nothing", async () => {
    const course = await create("alice");
    repository.outbox.length = 0;
    class ReadThenDeletedElsewhere extends GetCourse {
      override async execute(userId: string, courseId: string): Promise<Course> {
        const read = await super.execute(userId, courseId);
        await repository.deleteOwned(userId, courseId, []);
        return read;
      }
    }
    const racing = new UpdateCourse(repository, new ReadThenDeletedElsewhere(repository));
    expect(await refusal(() => racing.execute("alice", course.id, { set: { name: "Too late" }, clear: [] }))).toMatchObject(notFound);
    expect(repository.outbox).toEqual([]);
  });

  it("answers NOT_FOUND for another user's course and leaves it as it was, without an event", async () => {
    const course = await create("alice");
    repository.outbox.length = 0;
    expect(await refusal(() => useCases.updateCourse.execute("bob", course.id, { set: { name: "Mine now" }, clear: [] }))).toMatchObject(notFound);
    expect(await refusal(() => useCases.updateCourse.execute("alice", randomUUID(), { set: { name: "x" }, clear: [] }))).toMatchObject(notFound);
    expect(repository.all()).toEqual([course]);
    expect(repository.outbox).toEqual([]);
  });

  it("refuses invalid changes with their details and changes nothing", async () => {
    const course = await create("alice");
    repository.outbox.length = 0;
    expect(
      await refusal(() => useCases.updateCourse.execute("alice", course.id, { set: { color: "not a colour", emoji: "x".repeat(17) }, clear: [] })),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "emoji", message: "must be at most 16 characters" },
        { field: "color", message: "must be a hex code (#RRGGBB) or a color name" },
      ],
    });
    expect(
      await refusal(() => useCases.updateCourse.execute("alice", course.id, { set: {}, clear: clearFieldsFromWire(["name", "colour"]) })),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "name", message: "is required and cannot be cleared" },
        { field: "colour", message: "is not a course field" },
      ],
    });
    expect(repository.all()).toEqual([course]);
    expect(repository.outbox).toEqual([]);
  });
});

describe("DeleteCourse", () => {
  it("deletes the user's course and emits courses.course.deleted.v1 with its id and name", async () => {
    const course = await create("alice", { name: "Organic Chemistry" });
    const kept = await create("alice", { name: "Physics" });
    repository.outbox.length = 0;

    await useCases.deleteCourse.execute("alice", course.id);
    expect(repository.all().map((c) => c.id)).toEqual([kept.id]);
    expect(repository.outbox).toHaveLength(1);
    expect(eventOf(repository.outbox[0], "courseDeleted")).toEqual({
      type: EVENT_TYPES.courseDeleted,
      source: "courses",
      userId: "alice",
      value: { courseId: course.id, name: "Organic Chemistry" },
    });
    expect(await refusal(() => useCases.getCourse.execute("alice", course.id))).toMatchObject(notFound);
  });

  it("answers NOT_FOUND for another user's course, an unknown id and a second delete, deleting and emitting nothing", async () => {
    const course = await create("alice");
    repository.outbox.length = 0;
    expect(await refusal(() => useCases.deleteCourse.execute("bob", course.id))).toMatchObject(notFound);
    expect(await refusal(() => useCases.deleteCourse.execute("alice", randomUUID()))).toMatchObject(notFound);
    expect(repository.all()).toEqual([course]);
    expect(repository.outbox).toEqual([]);

    await useCases.deleteCourse.execute("alice", course.id);
    expect(await refusal(() => useCases.deleteCourse.execute("alice", course.id))).toMatchObject(notFound);
    expect(repository.outbox).toHaveLength(1);
  });

  it("answers NOT_FOUND when the course disappears between the read and the delete", async () => {
    const course = await create("alice");
    repository.outbox.length = 0;
    // Another request deletes it right after this one read it.
    class ReadThenDeletedElsewhere extends GetCourse {
      override async execute(userId: string, courseId: string): Promise<Course> {
        const read = await super.execute(userId, courseId);
        await repository.deleteOwned(userId, courseId, []);
        return read;
      }
    }
    const racing = new DeleteCourse(repository, new ReadThenDeletedElsewhere(repository));
    expect(await refusal(() => racing.execute("alice", course.id))).toMatchObject(notFound);
    expect(repository.outbox).toEqual([]);
  });
});

describe("BatchGetCourses", () => {
  it("returns the user's courses among the ids, leaving out unknown, malformed, foreign and repeated ids", async () => {
    const biology = await create("alice", { name: "Biology" });
    const physics = await create("alice", { name: "Physics" });
    const bobs = await create("bob", { name: "Bob's" });
    const found = await useCases.batchGetCourses.execute("alice", [biology.id, "nope", randomUUID(), bobs.id, physics.id, biology.id]);
    expect(found.map((c) => c.id).sort()).toEqual([biology.id, physics.id].sort());
  });

  it("answers an empty list without asking the repository when no id can name a course", async () => {
    const findManyOwned = jest.spyOn(repository, "findManyOwned");
    expect(await useCases.batchGetCourses.execute("alice", [])).toEqual([]);
    expect(await useCases.batchGetCourses.execute("alice", ["x", "y"])).toEqual([]);
    expect(findManyOwned).not.toHaveBeenCalled();
  });

  it(`accepts up to ${MAX_BATCH} distinct ids and refuses more with the field's detail`, async () => {
    const ids = (n: number) => Array.from({ length: n }, () => randomUUID());
    expect(await useCases.batchGetCourses.execute("alice", ids(MAX_BATCH))).toEqual([]);
    const repeated = ids(1);
    expect(await useCases.batchGetCourses.execute("alice", [...ids(MAX_BATCH - 1), ...repeated, ...repeated])).toEqual([]);
    expect(await refusal(() => useCases.batchGetCourses.execute("alice", ids(MAX_BATCH + 1)))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "courseIds", message: `at most ${MAX_BATCH}` }],
    });
  });

  it("refuses a missing user id", async () => {
    expect(await refusal(() => useCases.batchGetCourses.execute("", [randomUUID()]))).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR" });
  });
});

describe("ListSearchables", () => {
  const list = (query: { userId?: string; pageToken?: string; pageSize?: number }) =>
    new ListSearchables(repository).execute({ pageToken: "", pageSize: 0, ...query });

  it("pages through every course in id order, each page's token leading to the next, the last with none", async () => {
    const created = [await create("alice", { name: "A" }), await create("bob", { name: "B" }), await create("alice", { name: "C" })];
    const first = await list({ pageSize: 2 });
    expect(first.searchables.map((s) => s.title)).toEqual(["A", "B"]);
    expect(first.nextPageToken).not.toBe("");
    const second = await list({ pageSize: 2, pageToken: first.nextPageToken });
    expect(second).toEqual({ searchables: [expect.objectContaining({ id: created[2].id, title: "C", userId: "alice" })], nextPageToken: "" });
    // A page that ends exactly at the last course says so: no empty page to fetch.
    expect((await list({ pageSize: 3 })).nextPageToken).toBe("");
  });

  it("lists one user's courses when user_id is given", async () => {
    await create("alice", { name: "Mine" });
    await create("bob", { name: "Theirs" });
    const page = await list({ userId: "bob" });
    expect(page.searchables.map((s) => [s.userId, s.title])).toEqual([["bob", "Theirs"]]);
  });

  it(`reads ${DEFAULT_SEARCHABLE_PAGE_SIZE} per page when no size is given`, async () => {
    const listPageAfter = jest.spyOn(repository, "listPageAfter");
    await list({});
    expect(listPageAfter).toHaveBeenCalledWith({ userId: undefined, afterId: null, limit: DEFAULT_SEARCHABLE_PAGE_SIZE + 1 });
  });

  it("refuses a page size outside 1-1000, a token it did not make and an empty user id", async () => {
    const invalid = { kind: "validation", code: "VALIDATION_ERROR" };
    for (const pageSize of [-1, 1001]) {
      expect(await refusal(() => list({ pageSize }))).toMatchObject({
        ...invalid,
        details: [{ field: "pageSize", message: "must be between 1 and 1000" }],
      });
    }
    for (const pageToken of ["garbage!", encodePageToken("not-a-uuid"), `${encodePageToken(randomUUID())}=`]) {
      expect(await refusal(() => list({ pageToken }))).toMatchObject({
        ...invalid,
        details: [{ field: "pageToken", message: "is not a token of a previous page" }],
      });
    }
    expect(await refusal(() => list({ userId: "" }))).toMatchObject(invalid);
    expect((await list({ pageSize: 1000 })).searchables).toEqual([]);
  });
});
