import { randomUUID } from "node:crypto";
import { indexing } from "@study/contracts";
import { EVENT_TYPES, type EventEnvelope } from "@study/events/envelope";
import { AppError } from "@study/platform/errors";
import { refusal } from "@study/testkit/refusal";
import { CreateEvent } from "../../src/application/create-event";
import { CreateEventsFromSource } from "../../src/application/create-events-from-source";
import { DeleteEvent } from "../../src/application/delete-event";
import { DetachCourse } from "../../src/application/detach-course";
import { GetEvent } from "../../src/application/get-event";
import { DEFAULT_PAGE_SIZE, ListEvents, MAX_PAGE_SIZE } from "../../src/application/list-events";
import { ListSearchables } from "../../src/application/list-searchables";
import type { CourseDirectory } from "../../src/application/ports/course-directory.port";
import { DEFAULT_SEARCHABLE_PAGE_SIZE, encodePageToken } from "@study/platform/searchable-page";
import { UpdateEvent } from "../../src/application/update-event";
import { toSearchable } from "../../src/application/searchable";
import { MAX_REPORTED_VIOLATIONS, MAX_SOURCE_ITEMS, type CalendarEvent, type EventInput, type SourceItem } from "../../src/domain/calendar-event";
import { InMemoryCalendarEventRepository } from "./in-memory-calendar-event-repository";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const eventNotFound = { kind: "not_found", code: "CALENDAR_EVENT_NOT_FOUND" };
const courseNotFound = { kind: "not_found", code: "NOT_FOUND" };
const at = (iso: string) => new Date(iso);

/** The courses service as the calendar sees it: the courses each user owns. */
class FakeCourseDirectory implements CourseDirectory {
  readonly owners = new Map<string, string>();
  readonly asked: string[] = [];

  own(userId: string): string {
    const courseId = randomUUID();
    this.owners.set(courseId, userId);
    return courseId;
  }

  async assertOwned(userId: string, courseId: string): Promise<void> {
    this.asked.push(courseId);
    if (this.owners.get(courseId) !== userId) throw AppError.notFound("Course");
  }
}

let repository: InMemoryCalendarEventRepository;
let courses: FakeCourseDirectory;
let useCases: ReturnType<typeof calendarUseCases>;

function calendarUseCases(events: InMemoryCalendarEventRepository, directory: CourseDirectory) {
  const getEvent = new GetEvent(events);
  return {
    createEvent: new CreateEvent(events, directory),
    createEventsFromSource: new CreateEventsFromSource(events, directory),
    getEvent,
    listEvents: new ListEvents(events),
    updateEvent: new UpdateEvent(events, getEvent, directory),
    deleteEvent: new DeleteEvent(events, getEvent),
    detachCourse: new DetachCourse(events),
  };
}

beforeEach(() => {
  repository = new InMemoryCalendarEventRepository();
  courses = new FakeCourseDirectory();
  useCases = calendarUseCases(repository, courses);
});

const input: EventInput = {
  title: "Cell Biology lecture",
  description: null,
  startDate: at("2026-03-02T09:00:00Z"),
  endDate: null,
  eventType: "CLASS",
  location: null,
  priority: null,
  color: "#3B82F6",
  courseId: null,
  reminderMinutes: null,
};
const create = (userId: string, changes: Partial<EventInput> = {}) => useCases.createEvent.execute(userId, { ...input, ...changes });

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

describe("CreateEvent", () => {
  it("stores the event under a new UUIDv7 and emits calendar.event.created.v1 with its searchable", async () => {
    const courseId = courses.own("alice");
    const event = await create("alice", {
      title: " Midterm ",
      description: "Chapters 1-4",
      endDate: at("2026-03-02T11:00:00Z"),
      eventType: "EXAM",
      location: "Hall B",
      priority: "HIGH",
      color: "crimson",
      courseId,
      reminderMinutes: 60,
    });
    expect(event).toMatchObject({ userId: "alice", title: "Midterm", eventType: "EXAM", priority: "HIGH", courseId, reminderMinutes: 60 });
    expect(event.id).toMatch(UUID_V7);
    expect(repository.all()).toEqual([event]);
    expect(courses.asked).toEqual([courseId]);
    expect(repository.outbox).toHaveLength(1);
    expect(eventOf(repository.outbox[0], "calendarEventCreated")).toEqual({
      type: EVENT_TYPES.calendarEventCreated,
      source: "calendar",
      userId: "alice",
      value: {
        eventId: event.id,
        courseId,
        fromGoogle: false,
        searchable: {
          type: indexing.SearchableType.SEARCHABLE_TYPE_CALENDAR_EVENT,
          id: event.id,
          userId: "alice",
          courseId,
          title: "Midterm",
          keywords: ["Hall B", "EXAM"],
          description: "",
          content: "Chapters 1-4",
          metadata: {
            startDate: "2026-03-02T09:00:00.000Z",
            endDate: "2026-03-02T11:00:00.000Z",
            eventType: "EXAM",
            priority: "HIGH",
            location: "Hall B",
          },
          createdAt: event.createdAt,
          updatedAt: event.createdAt,
        },
      },
    });
  });

  it("defaults priority MEDIUM and the reminder to 30 minutes, and asks no course when none is given", async () => {
    expect(await create("alice")).toMatchObject({ priority: "MEDIUM", reminderMinutes: 30, courseId: null });
    expect(courses.asked).toEqual([]);
  });

  it("answers NOT_FOUND for a course of another user (or none), storing and emitting nothing", async () => {
    const bobs = courses.own("bob");
    expect(await refusal(() => create("alice", { courseId: bobs }))).toMatchObject(courseNotFound);
    expect(await refusal(() => create("alice", { courseId: randomUUID() }))).toMatchObject(courseNotFound);
    expect(repository.all()).toEqual([]);
    expect(repository.outbox).toEqual([]);
  });

  it("refuses invalid input with one detail per field before asking the courses service", async () => {
    expect(await refusal(() => create("alice", { title: "", color: "nope", eventType: null, courseId: "x" }))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "title", message: "must not be empty" },
        { field: "eventType", message: "is required" },
        { field: "color", message: "must be a hex code (#RGB or #RRGGBB) or a CSS color name" },
        { field: "courseId", message: "must be a course id (UUID)" },
      ],
    });
    expect(await refusal(() => create(""))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "userId", message: "is required" }],
    });
    expect(courses.asked).toEqual([]);
    expect(repository.outbox).toEqual([]);
  });
});

describe("CreateEventsFromSource", () => {
  const item = (sourceKey: string, changes: Partial<SourceItem> = {}): SourceItem => ({
    sourceKey,
    title: `Item ${sourceKey}`,
    description: null,
    startDate: at("2026-09-02T10:00:00Z"),
    endDate: at("2026-09-02T11:15:00Z"),
    eventType: "CLASS",
    location: null,
    allDayDate: null,
    ...changes,
  });
  const syllabus = (courseId: string) => [
    item(`syllabus:${courseId}:lecture-1`, { title: " Lecture 1 ", location: "Room 101" }),
    item(`syllabus:${courseId}:midterm`, { title: "Midterm", eventType: "EXAM", description: "Chapters 1-4" }),
    item(`syllabus:${courseId}:essay`, { title: "Essay due", eventType: "DEADLINE", startDate: null, endDate: null, allDayDate: "2026-10-15" }),
  ];
  const fromSource = (userId: string, courseId: string | null, items: SourceItem[]) =>
    useCases.createEventsFromSource.execute(userId, courseId, items);

  it("creates one event per new item with CreateEvent's defaults and its type's colour, announcing each with its searchable", async () => {
    const courseId = courses.own("alice");
    expect(await fromSource("alice", courseId, syllabus(courseId))).toEqual({ created: 3, existing: 0 });
    const stored = repository.all();
    expect(stored).toHaveLength(3);
    expect(stored.map((event) => [event.title, event.eventType, event.color, event.priority, event.reminderMinutes, event.courseId])).toEqual([
      ["Lecture 1", "CLASS", "#3b82f6", "MEDIUM", 30, courseId],
      ["Midterm", "EXAM", "#ef4444", "MEDIUM", 30, courseId],
      ["Essay due", "DEADLINE", "#f59e0b", "MEDIUM", 30, courseId],
    ]);
    expect(stored.map((event) => repository.sourceKeyOf(event.id))).toEqual(syllabus(courseId).map((given) => given.sourceKey));
    for (const event of stored) expect(event.id).toMatch(UUID_V7);
    // The course is asked once for the call, not per item.
    expect(courses.asked).toEqual([courseId]);
    expect(repository.outbox.map((envelope) => eventOf(envelope, "calendarEventCreated"))).toEqual(
      stored.map((event) => ({
        type: EVENT_TYPES.calendarEventCreated,
        source: "calendar",
        userId: "alice",
        value: { eventId: event.id, courseId, fromGoogle: false, searchable: toSearchable(event) },
      })),
    );
  });

  it("keeps an all-day item's date, its start at that day's midnight UTC, as an all-day event imported from Google", async () => {
    await fromSource("alice", null, [
      item("k1", { startDate: null, endDate: null, allDayDate: "2026-10-15" }),
      item("k2", { startDate: at("2026-10-16T00:00:00Z"), endDate: at("2026-10-18T00:00:00Z"), allDayDate: "2026-10-16" }),
    ]);
    expect(repository.all().map(({ startDate, endDate, allDayDate }) => ({ startDate, endDate, allDayDate }))).toEqual([
      { startDate: at("2026-10-15T00:00:00Z"), endDate: null, allDayDate: "2026-10-15" },
      { startDate: at("2026-10-16T00:00:00Z"), endDate: at("2026-10-18T00:00:00Z"), allDayDate: "2026-10-16" },
    ]);
    expect(courses.asked).toEqual([]);
  });

  it("creates nothing for keys the user has already, announcing only the new ones; another user's same key is theirs", async () => {
    const courseId = courses.own("alice");
    await fromSource("alice", courseId, syllabus(courseId));
    const first = repository.all();
    const announced = repository.outbox.length;

    expect(await fromSource("alice", courseId, syllabus(courseId))).toEqual({ created: 0, existing: 3 });
    expect(repository.all()).toEqual(first);
    expect(repository.outbox).toHaveLength(announced);

    const added = item(`syllabus:${courseId}:final`, { title: "Final exam", eventType: "EXAM" });
    // An existing key's event is left as it was, even when the item changed.
    const changed = [{ ...syllabus(courseId)[0], title: "Lecture 1 (moved)" }, added];
    expect(await fromSource("alice", courseId, changed)).toEqual({ created: 1, existing: 1 });
    expect(repository.all().map((event) => event.title)).toEqual(["Lecture 1", "Midterm", "Final exam", "Essay due"]);
    const finalExam = repository.all().find((event) => event.title === "Final exam");
    expect(repository.outbox.slice(announced).map((envelope) => eventOf(envelope, "calendarEventCreated").value)).toEqual([
      expect.objectContaining({ eventId: finalExam?.id }),
    ]);

    const bobsCourse = courses.own("bob");
    expect(await fromSource("bob", bobsCourse, [item(`syllabus:${courseId}:midterm`)])).toEqual({ created: 1, existing: 0 });
  });

  it("refuses invalid items with CreateEvent's rules, each problem named by item index and field, storing nothing", async () => {
    const courseId = courses.own("alice");
    const items = [
      item("ok"),
      item("bad-1", { title: "", eventType: null, location: "x".repeat(256) }),
      item("bad-2", { endDate: at("2026-09-02T09:00:00Z"), description: "d".repeat(1001) }),
      item("ok"),
      item("", { allDayDate: "2026-02-30" }),
      item("bad-5", { startDate: at("2026-10-15T08:00:00Z"), endDate: null, allDayDate: "2026-10-15" }),
      item("bad-6", { startDate: null }),
    ];
    expect(await refusal(() => fromSource("alice", courseId, items))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "items[1].title", message: "must not be empty" },
        { field: "items[1].eventType", message: "is required" },
        { field: "items[1].location", message: "must be at most 255 characters" },
        { field: "items[2].description", message: "must be at most 1000 characters" },
        { field: "items[2].endDate", message: "must not be before startDate" },
        { field: "items[3].sourceKey", message: "must differ from items[0].sourceKey" },
        { field: "items[4].sourceKey", message: "must not be empty" },
        { field: "items[4].allDayDate", message: "must be a date (YYYY-MM-DD)" },
        { field: "items[5].startDate", message: "must be the midnight UTC of allDayDate (2026-10-15T00:00:00.000Z)" },
        { field: "items[6].startDate", message: "is required" },
      ],
    });
    expect(await refusal(() => fromSource("alice", "not-a-course", [item("k")]))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "courseId", message: "must be a course id (UUID)" }],
    });
    expect(await refusal(() => fromSource("", courseId, [item("k")]))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "userId", message: "is required" }],
    });
    expect(courses.asked).toEqual([]);
    expect(repository.all()).toEqual([]);
    expect(repository.outbox).toEqual([]);
  });

  it(`takes at most ${MAX_SOURCE_ITEMS} items and names at most ${MAX_REPORTED_VIOLATIONS} problems`, async () => {
    const many = (count: number, changes: Partial<SourceItem> = {}) => Array.from({ length: count }, (_, index) => item(`k${index}`, changes));
    expect(await refusal(() => fromSource("alice", null, many(MAX_SOURCE_ITEMS + 1)))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "items", message: `must be at most ${MAX_SOURCE_ITEMS} items` }],
    });
    const refused = await refusal(() => fromSource("alice", null, many(50, { title: "" })));
    expect(refused.details).toHaveLength(MAX_REPORTED_VIOLATIONS);
    expect(refused.details[MAX_REPORTED_VIOLATIONS - 1]).toEqual({
      field: `items[${MAX_REPORTED_VIOLATIONS - 1}].title`,
      message: "must not be empty",
    });
    expect(await fromSource("alice", null, many(MAX_SOURCE_ITEMS))).toEqual({ created: MAX_SOURCE_ITEMS, existing: 0 });
  });

  it("answers NOT_FOUND for a course of another user (or none), storing and announcing nothing; no items creates nothing", async () => {
    const bobs = courses.own("bob");
    expect(await refusal(() => fromSource("alice", bobs, [item("k")]))).toMatchObject(courseNotFound);
    expect(await refusal(() => fromSource("alice", randomUUID(), []))).toMatchObject(courseNotFound);
    expect(repository.all()).toEqual([]);
    expect(repository.outbox).toEqual([]);
    expect(await fromSource("alice", courses.own("alice"), [])).toEqual({ created: 0, existing: 0 });
  });
});

describe("GetEvent", () => {
  it("answers the owner's event, CALENDAR_EVENT_NOT_FOUND for another user's or an unknown id, 400 for a malformed id", async () => {
    const event = await create("alice");
    expect(await useCases.getEvent.execute("alice", event.id)).toEqual(event);
    expect(await refusal(() => useCases.getEvent.execute("bob", event.id))).toMatchObject(eventNotFound);
    expect(await refusal(() => useCases.getEvent.execute("alice", randomUUID()))).toMatchObject(eventNotFound);
    expect(await refusal(() => useCases.getEvent.execute("alice", "not-an-id"))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "id", message: "must be an event id (UUID)" }],
    });
  });
});

describe("ListEvents", () => {
  const seed = async (userId: string, start: string, changes: Partial<EventInput> = {}) => create(userId, { startDate: at(start), ...changes });

  it("lists the user's events by start then id, paged, with the total", async () => {
    const third = await seed("alice", "2026-03-03T09:00:00Z");
    const first = await seed("alice", "2026-03-01T09:00:00Z");
    const second = await seed("alice", "2026-03-02T09:00:00Z");
    await seed("bob", "2026-03-01T08:00:00Z");
    const page = await useCases.listEvents.execute("alice", {});
    expect(page).toMatchObject({ total: 3, limit: DEFAULT_PAGE_SIZE, offset: 0 });
    expect(page.events.map((e) => e.id)).toEqual([first.id, second.id, third.id]);
    const middle = await useCases.listEvents.execute("alice", { limit: 1, offset: 1 });
    expect(middle).toMatchObject({ events: [{ id: second.id }], total: 3, limit: 1, offset: 1 });
    expect(await useCases.listEvents.execute("alice", { limit: 2, offset: 5 })).toMatchObject({ events: [], total: 3 });
  });

  it("filters by start (from), end (before; an event without an end ends at its start), type and course", async () => {
    const courseId = courses.own("alice");
    const early = await seed("alice", "2026-03-01T09:00:00Z", { endDate: at("2026-03-01T10:00:00Z") });
    const open = await seed("alice", "2026-03-02T09:00:00Z", { eventType: "DEADLINE", courseId });
    const late = await seed("alice", "2026-03-03T09:00:00Z", { endDate: at("2026-03-05T09:00:00Z"), courseId });
    const ids = async (query: Parameters<ListEvents["execute"]>[1]) => (await useCases.listEvents.execute("alice", query)).events.map((e) => e.id);
    expect(await ids({ startsFrom: at("2026-03-02T09:00:00Z") })).toEqual([open.id, late.id]);
    expect(await ids({ endsBefore: at("2026-03-02T09:00:01Z") })).toEqual([early.id, open.id]);
    expect(await ids({ endsBefore: at("2026-03-02T09:00:00Z") })).toEqual([early.id]);
    expect(await ids({ eventType: "DEADLINE" })).toEqual([open.id]);
    expect(await ids({ courseId })).toEqual([open.id, late.id]);
    expect((await useCases.listEvents.execute("alice", { courseId, startsFrom: at("2026-03-03T00:00:00Z") })).total).toBe(1);
  });

  it.each([
    [{ limit: MAX_PAGE_SIZE + 1 }, { field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }],
    [{ limit: -1 }, { field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }],
    [{ offset: -1 }, { field: "offset", message: "must be 0 or more" }],
    [{ courseId: "biology" }, { field: "courseId", message: "must be a course id (UUID)" }],
    [{ startsFrom: new Date("nope") }, { field: "startsFrom", message: "must be a valid date" }],
  ])("refuses %j with the field's detail", async (query, detail) => {
    expect(await refusal(() => useCases.listEvents.execute("alice", query))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [detail],
    });
  });

  it("takes an absent or zero limit as 50 and accepts 100", async () => {
    expect(await useCases.listEvents.execute("alice", { limit: 0 })).toMatchObject({ limit: 50 });
    expect(await useCases.listEvents.execute("alice", { limit: 100 })).toMatchObject({ limit: 100 });
  });
});

describe("UpdateEvent", () => {
  it("sets the given fields, clears the named ones, keeps the rest, and emits calendar.event.updated.v1", async () => {
    const courseId = courses.own("alice");
    const event = await create("alice", { description: "Bring notes", location: "Room 4", courseId, endDate: at("2026-03-02T10:00:00Z") });
    repository.outbox.length = 0;
    const updated = await useCases.updateEvent.execute("alice", event.id, {
      set: { title: "Lab", priority: "LOW" },
      clear: ["description", "courseId", "endDate"],
    });
    expect(updated).toMatchObject({ title: "Lab", priority: "LOW", description: null, courseId: null, endDate: null, location: "Room 4" });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(event.updatedAt.getTime());
    expect(await useCases.getEvent.execute("alice", event.id)).toEqual(updated);
    expect(eventOf(repository.outbox[0], "calendarEventUpdated").value).toMatchObject({
      eventId: event.id,
      courseId: undefined,
      searchable: { title: "Lab", content: "", keywords: ["Room 4", "CLASS"], updatedAt: updated.updatedAt },
    });
  });

  it("checks endDate ≥ startDate when only the start moves, changing nothing when refused", async () => {
    const event = await create("alice", { endDate: at("2026-03-02T10:00:00Z") });
    repository.outbox.length = 0;
    expect(
      await refusal(() => useCases.updateEvent.execute("alice", event.id, { set: { startDate: at("2026-03-02T11:00:00Z") }, clear: [] })),
    ).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "endDate", message: "must not be before startDate" }],
    });
    expect(repository.all()).toEqual([event]);
    expect(repository.outbox).toEqual([]);
  });

  it("checks a new course with the courses service: another user's is NOT_FOUND", async () => {
    const event = await create("alice");
    const mine = courses.own("alice");
    const bobs = courses.own("bob");
    expect(await refusal(() => useCases.updateEvent.execute("alice", event.id, { set: { courseId: bobs }, clear: [] }))).toMatchObject(
      courseNotFound,
    );
    expect((await useCases.updateEvent.execute("alice", event.id, { set: { courseId: mine }, clear: [] })).courseId).toBe(mine);
    // Unchanged course: not asked again.
    courses.asked.length = 0;
    await useCases.updateEvent.execute("alice", event.id, { set: { courseId: mine, title: "Renamed" }, clear: [] });
    expect(courses.asked).toEqual([]);
  });

  it("answers CALENDAR_EVENT_NOT_FOUND for another user's event or one deleted between the read and the write", async () => {
    const event = await create("alice");
    repository.outbox.length = 0;
    expect(await refusal(() => useCases.updateEvent.execute("bob", event.id, { set: { title: "Mine" }, clear: [] }))).toMatchObject(eventNotFound);
    class ReadThenDeletedElsewhere extends GetEvent {
      override async execute(userId: string, eventId: string): Promise<CalendarEvent> {
        const read = await super.execute(userId, eventId);
        await repository.deleteOwned(userId, eventId, () => []);
        return read;
      }
    }
    const racing = new UpdateEvent(repository, new ReadThenDeletedElsewhere(repository), courses);
    expect(await refusal(() => racing.execute("alice", event.id, { set: { title: "Too late" }, clear: [] }))).toMatchObject(eventNotFound);
    expect(repository.outbox).toEqual([]);
  });
});

describe("DeleteEvent", () => {
  it("deletes the user's event and emits calendar.event.deleted.v1; a second delete or another user's is CALENDAR_EVENT_NOT_FOUND", async () => {
    const event = await create("alice");
    repository.outbox.length = 0;
    expect(await refusal(() => useCases.deleteEvent.execute("bob", event.id))).toMatchObject(eventNotFound);
    await useCases.deleteEvent.execute("alice", event.id);
    expect(repository.all()).toEqual([]);
    expect(eventOf(repository.outbox[0], "calendarEventDeleted")).toEqual({
      type: EVENT_TYPES.calendarEventDeleted,
      source: "calendar",
      userId: "alice",
      value: { eventId: event.id, googleEventId: undefined, googleCalendarId: undefined, fromGoogle: false },
    });
    expect(await refusal(() => useCases.deleteEvent.execute("alice", event.id))).toMatchObject(eventNotFound);
    expect(repository.outbox).toHaveLength(1);
  });
});

describe("DetachCourse", () => {
  it("sets the course's events of its owner to no course in the given transaction, announcing each as updated", async () => {
    const courseId = courses.own("alice");
    const first = await create("alice", { courseId });
    const second = await create("alice", { courseId, startDate: at("2026-03-05T09:00:00Z") });
    const other = await create("alice", { courseId: courses.own("alice") });
    repository.outbox.length = 0;

    const tx = { name: "inbox transaction" };
    const detached = await useCases.detachCourse.execute("alice", courseId, tx);
    expect(repository.transactions).toEqual([tx]);
    expect(detached.map((e) => e.id).sort()).toEqual([first.id, second.id].sort());
    expect(repository.all().map((e) => [e.id, e.courseId])).toEqual([
      [first.id, null],
      [other.id, other.courseId],
      [second.id, null],
    ]);
    expect(repository.outbox.map((envelope) => eventOf(envelope, "calendarEventUpdated").value.eventId).sort()).toEqual([first.id, second.id].sort());
    for (const envelope of repository.outbox) {
      const { value } = eventOf(envelope, "calendarEventUpdated");
      expect(value.courseId).toBeUndefined();
      expect(value.searchable?.courseId).toBeUndefined();
      expect(value.searchable?.updatedAt?.getTime()).toBeGreaterThan(first.updatedAt.getTime() - 1);
    }
  });

  it("leaves another user's events and a malformed course id alone", async () => {
    const courseId = courses.own("alice");
    await create("alice", { courseId });
    repository.outbox.length = 0;
    expect(await useCases.detachCourse.execute("bob", courseId, { name: "tx" })).toEqual([]);
    expect(await useCases.detachCourse.execute("alice", "not-a-uuid", { name: "tx" })).toEqual([]);
    expect(repository.all()[0].courseId).toBe(courseId);
    expect(repository.outbox).toEqual([]);
  });
});

describe("ListSearchables", () => {
  const list = (query: { userId?: string; pageToken?: string; pageSize?: number }) =>
    new ListSearchables(repository).execute({ pageToken: "", pageSize: 0, ...query });

  it("pages through every event in id order, one user's when asked, the last page without a token", async () => {
    const created = [await create("alice", { title: "A" }), await create("bob", { title: "B" }), await create("alice", { title: "C" })];
    const first = await list({ pageSize: 2 });
    expect(first.searchables.map((s) => s.title)).toEqual(["A", "B"]);
    const second = await list({ pageSize: 2, pageToken: first.nextPageToken });
    expect(second).toEqual({ searchables: [expect.objectContaining({ id: created[2].id, title: "C" })], nextPageToken: "" });
    expect((await list({ userId: "bob" })).searchables.map((s) => s.title)).toEqual(["B"]);
  });

  it(`reads ${DEFAULT_SEARCHABLE_PAGE_SIZE} per page by default and refuses a foreign token`, async () => {
    const listPageAfter = jest.spyOn(repository, "listPageAfter");
    await list({});
    expect(listPageAfter).toHaveBeenCalledWith({ userId: undefined, afterId: null, limit: DEFAULT_SEARCHABLE_PAGE_SIZE + 1 });
    expect(await refusal(() => list({ pageToken: encodePageToken("not-a-uuid") }))).toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
