import { randomUUID } from "node:crypto";
import { httpClient, sharedTestStack, signUpUser, type SharedStack, type SignedUpUser } from "@study/testkit";

interface Course {
  id: string;
  name: string;
  code: string | null;
}

interface CalendarEvent {
  id: string;
  title: string;
  description: string | null;
  startDate: string;
  endDate: string | null;
  eventType: string;
  location: string | null;
  priority: string;
  color: string;
  courseId: string | null;
  course: { id: string; name: string; code: string | null } | null;
  user: { id: string; name: string };
  updatedAt: string;
}

interface EventPage {
  events: CalendarEvent[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
}

/**
 * Calendar events through the gateway (spec "Calendar"): create with defaults, read, list with every filter and
 * page, patch a subset (null clears), delete; the shape errors the gateway refuses and the rules the calendar
 * service refuses, both in the spec's envelope; owner scoping of events and courses; no session.
 */
describe("calendar events end to end", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let calculus: Course;
  let bobsCourse: Course;

  const COLOR_MESSAGE = "must be a hex code (#RGB or #RRGGBB) or a CSS color name";
  const base = { title: "Linear algebra lecture", startDate: "2026-12-01T09:00:00.000Z", eventType: "CLASS", color: "#3b82f6" };

  async function createCourse(token: string, body: Record<string, string>): Promise<Course> {
    const created = await api("POST", "/api/courses", { token, body });
    expect([created.status, created.body.code]).toEqual([201, undefined]);
    const { id, name, code } = created.body.data as Course;
    return { id, name, code };
  }

  async function createEvent(token: string, body: Record<string, unknown>): Promise<CalendarEvent> {
    const created = await api("POST", "/api/calendar/events", { token, body });
    expect([created.status, created.body.code]).toEqual([201, undefined]);
    return created.body.data as CalendarEvent;
  }

  async function list(token: string, parameters: Record<string, string> = {}): Promise<EventPage> {
    const response = await api("GET", `/api/calendar/events?${new URLSearchParams(parameters).toString()}`, { token });
    expect({ parameters, status: response.status, code: response.body.code }).toEqual({ parameters, status: 200, code: undefined });
    return response.body.data as EventPage;
  }

  const ids = (page: EventPage) => page.events.map((event) => event.id);
  /** The same request on an event by every method that names one. */
  const byId: [string, unknown?][] = [["GET"], ["PATCH", { title: "Renamed by someone" }], ["DELETE"]];

  const validationError = (field: string, message: string = expect.any(String)) => ({
    success: false,
    error: expect.any(String),
    code: "VALIDATION_ERROR",
    details: expect.arrayContaining([{ field, message }]),
  });

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    alice = await signUpUser(api, { name: "Alice" });
    bob = await signUpUser(api, { name: "Bob" });
    calculus = await createCourse(alice.token, { name: "Calculus I", code: "MATH101" });
    bobsCourse = await createCourse(bob.token, { name: "Bob's Botany" });
  });

  it("creates an event with the defaults, stored in UTC, and reads it back with its user", async () => {
    const created = await api("POST", "/api/calendar/events", {
      token: alice.token,
      body: { ...base, startDate: "2026-12-01T10:00:00+01:00" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        title: base.title,
        description: null,
        startDate: "2026-12-01T09:00:00.000Z",
        endDate: null,
        eventType: "CLASS",
        location: null,
        priority: "MEDIUM",
        color: "#3b82f6",
        courseId: null,
        googleEventId: null,
        googleCalendarId: null,
        reminderMinutes: 30,
        allDayDate: null,
        userId: alice.userId,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        course: null,
        user: { id: alice.userId, name: "Alice" },
      },
      message: expect.any(String),
    });

    const read = await api("GET", `/api/calendar/events/${created.body.data.id}`, { token: alice.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ success: true, data: created.body.data, message: expect.any(String) });
  });

  it("creates an event with every field, its course embedded as {id, name, code}", async () => {
    const event = await createEvent(alice.token, {
      title: "Midterm",
      description: "Chapters 1-4",
      startDate: "2026-12-10T13:00:00.000Z",
      endDate: "2026-12-10T15:00:00.000Z",
      eventType: "EXAM",
      location: "Hall B",
      priority: "HIGH",
      color: "RebeccaPurple",
      courseId: calculus.id,
      reminderMinutes: 60,
    });
    expect(event).toMatchObject({
      title: "Midterm",
      description: "Chapters 1-4",
      endDate: "2026-12-10T15:00:00.000Z",
      eventType: "EXAM",
      location: "Hall B",
      priority: "HIGH",
      color: "RebeccaPurple",
      courseId: calculus.id,
      reminderMinutes: 60,
      course: { id: calculus.id, name: "Calculus I", code: "MATH101" },
      user: { id: alice.userId, name: "Alice" },
    });
    const read = await api("GET", `/api/calendar/events/${event.id}`, { token: alice.token });
    expect(read.body.data).toEqual(event);
  });

  it("refuses each invalid field with 400 in the envelope, naming the field", async () => {
    const cases: [string, Record<string, unknown>, string, string?][] = [
      ["empty title", { ...base, title: "" }, "title", "must not be empty"],
      ["title of 256 characters", { ...base, title: "t".repeat(256) }, "title", "must be at most 255 characters"],
      ["description of 1001 characters", { ...base, description: "d".repeat(1001) }, "description", "must be at most 1000 characters"],
      ["location of 256 characters", { ...base, location: "l".repeat(256) }, "location", "must be at most 255 characters"],
      ["colour that is no colour", { ...base, color: "not-a-colour" }, "color", COLOR_MESSAGE],
      ["hex colour of 5 digits", { ...base, color: "#12345" }, "color", COLOR_MESSAGE],
      ["missing colour", { title: base.title, startDate: base.startDate, eventType: base.eventType }, "color", "is required"],
      ["end before start", { ...base, endDate: "2026-12-01T08:59:59.000Z" }, "endDate", "must not be before startDate"],
      ["unknown event type", { ...base, eventType: "PARTY" }, "eventType", "must be one of CLASS, DEADLINE, EXAM, MEETING, STUDY_SESSION"],
      ["unknown priority", { ...base, priority: "URGENT" }, "priority", "must be one of LOW, MEDIUM, HIGH"],
      ["start that is no ISO date-time", { ...base, startDate: "next tuesday" }, "startDate", "must be an ISO 8601 date-time"],
      ["missing start", { title: base.title, eventType: base.eventType, color: base.color }, "startDate", "is required"],
      ["title that is no string", { ...base, title: 42 }, "title", "must be a string"],
      ["reminder of five weeks", { ...base, reminderMinutes: 50_400 }, "reminderMinutes", "must be a whole number from 0 to 40320"],
      ["reminder that is no whole number", { ...base, reminderMinutes: 1.5 }, "reminderMinutes", "must be an integer"],
      ["course id that is no id", { ...base, courseId: "calculus" }, "courseId", "must be a course id (UUID)"],
      ["field the API does not have", { ...base, allDayDate: "2026-12-01" }, "allDayDate", "is not a known field"],
    ];
    for (const [what, body, field, message] of cases) {
      const response = await api("POST", "/api/calendar/events", { token: alice.token, body });
      expect({ what, status: response.status, body: response.body }).toEqual({ what, status: 400, body: validationError(field, message) });
    }

    const queries: [string, string, string][] = [
      ["limit=0", "limit", "must be at least 1"],
      ["limit=101", "limit", "must be at most 100"],
      ["offset=-1", "offset", "must be at least 0"],
      ["startDate=2026-13-45", "startDate", "must be an ISO 8601 date-time"],
      ["endDate=yesterday", "endDate", "must be an ISO 8601 date-time"],
      ["eventType=PARTY", "eventType", "must be one of CLASS, DEADLINE, EXAM, MEETING, STUDY_SESSION"],
    ];
    for (const [query, field, message] of queries) {
      const response = await api("GET", `/api/calendar/events?${query}`, { token: alice.token });
      expect({ query, status: response.status, body: response.body }).toEqual({ query, status: 400, body: validationError(field, message) });
    }
  });

  it("refuses a PATCH that moves the end before the start, or the start after the end", async () => {
    const event = await createEvent(alice.token, { ...base, endDate: "2026-12-01T10:00:00.000Z" });
    const endFirst = await api("PATCH", `/api/calendar/events/${event.id}`, { token: alice.token, body: { endDate: "2026-12-01T08:00:00.000Z" } });
    expect(endFirst.status).toBe(400);
    expect(endFirst.body).toEqual(validationError("endDate", "must not be before startDate"));
    const startLate = await api("PATCH", `/api/calendar/events/${event.id}`, { token: alice.token, body: { startDate: "2026-12-01T11:00:00.000Z" } });
    expect(startLate.status).toBe(400);
    expect(startLate.body).toEqual(validationError("endDate", "must not be before startDate"));
    const empty = await api("PATCH", `/api/calendar/events/${event.id}`, { token: alice.token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(validationError("body", "must change at least one field"));
    const unchanged = await api("GET", `/api/calendar/events/${event.id}`, { token: alice.token });
    expect(unchanged.body.data).toEqual(event);
  });

  it("lists the user's events ascending by start, with each filter and by page", async () => {
    const carol = await signUpUser(api, { name: "Carol" });
    const physics = await createCourse(carol.token, { name: "Physics", code: "PHY1" });
    const lecture = await createEvent(carol.token, {
      ...base,
      title: "Lecture",
      startDate: "2027-01-10T09:00:00.000Z",
      endDate: "2027-01-10T10:00:00.000Z",
      courseId: physics.id,
    });
    const exam = await createEvent(carol.token, { ...base, title: "Exam", eventType: "EXAM", startDate: "2027-01-12T09:00:00.000Z" });
    const deadline = await createEvent(carol.token, {
      ...base,
      title: "Lab report",
      eventType: "DEADLINE",
      startDate: "2027-01-15T23:59:00.000Z",
      courseId: physics.id,
    });
    const seminar = await createEvent(carol.token, {
      ...base,
      title: "Seminar",
      startDate: "2027-01-20T09:00:00.000Z",
      endDate: "2027-01-20T11:00:00.000Z",
    });
    const all = await list(carol.token);
    expect(ids(all)).toEqual([lecture.id, exam.id, deadline.id, seminar.id]);
    expect(all.pagination).toEqual({ total: 4, limit: 50, offset: 0, hasMore: false });
    expect(all.events.map((event) => event.course)).toEqual([
      { id: physics.id, name: "Physics", code: "PHY1" },
      null,
      { id: physics.id, name: "Physics", code: "PHY1" },
      null,
    ]);
    expect(new Set(all.events.map((event) => JSON.stringify(event.user)))).toEqual(new Set([JSON.stringify({ id: carol.userId, name: "Carol" })]));

    // startDate: starting at or after; endDate: ending before (an event without an end ends at its start).
    expect(ids(await list(carol.token, { startDate: "2027-01-12T09:00:00.000Z" }))).toEqual([exam.id, deadline.id, seminar.id]);
    expect(ids(await list(carol.token, { endDate: "2027-01-15T23:59:00.000Z" }))).toEqual([lecture.id, exam.id]);
    expect(ids(await list(carol.token, { startDate: "2027-01-11T00:00:00+01:00", endDate: "2027-01-16T00:00:00Z" }))).toEqual([exam.id, deadline.id]);
    expect(ids(await list(carol.token, { eventType: "CLASS" }))).toEqual([lecture.id, seminar.id]);
    expect(ids(await list(carol.token, { courseId: physics.id }))).toEqual([lecture.id, deadline.id]);
    expect(ids(await list(carol.token, { courseId: physics.id, eventType: "DEADLINE" }))).toEqual([deadline.id]);

    const first = await list(carol.token, { limit: "2" });
    expect([ids(first), first.pagination]).toEqual([[lecture.id, exam.id], { total: 4, limit: 2, offset: 0, hasMore: true }]);
    const second = await list(carol.token, { limit: "2", offset: "2" });
    expect([ids(second), second.pagination]).toEqual([[deadline.id, seminar.id], { total: 4, limit: 2, offset: 2, hasMore: false }]);
    const beyond = await list(carol.token, { offset: "4" });
    expect([ids(beyond), beyond.pagination]).toEqual([[], { total: 4, limit: 50, offset: 4, hasMore: false }]);
    const classes = await list(carol.token, { eventType: "CLASS", limit: "1" });
    expect([ids(classes), classes.pagination]).toEqual([[lecture.id], { total: 2, limit: 1, offset: 0, hasMore: true }]);
  });

  it("patches a subset of fields and clears the nullable ones with null", async () => {
    const event = await createEvent(alice.token, {
      ...base,
      title: "Office hours",
      description: "Bring questions",
      endDate: "2026-12-01T10:00:00.000Z",
      eventType: "MEETING",
      location: "Room 12",
      courseId: calculus.id,
    });

    const renamed = await api("PATCH", `/api/calendar/events/${event.id}`, {
      token: alice.token,
      body: { title: "Office hours (moved)", priority: "LOW" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({
      success: true,
      data: { ...event, title: "Office hours (moved)", priority: "LOW", updatedAt: expect.any(String) },
      message: expect.any(String),
    });

    const cleared = await api("PATCH", `/api/calendar/events/${event.id}`, {
      token: alice.token,
      body: { courseId: null, description: null, location: null, endDate: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({
      ...renamed.body.data,
      courseId: null,
      course: null,
      description: null,
      location: null,
      endDate: null,
      updatedAt: expect.any(String),
    });

    const moved = await api("PATCH", `/api/calendar/events/${event.id}`, {
      token: alice.token,
      body: { courseId: calculus.id, startDate: "2026-12-02T14:00:00-05:00", eventType: "STUDY_SESSION", color: "#ABC" },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({
      courseId: calculus.id,
      course: { id: calculus.id, name: "Calculus I", code: "MATH101" },
      startDate: "2026-12-02T19:00:00.000Z",
      eventType: "STUDY_SESSION",
      color: "#ABC",
      title: "Office hours (moved)",
      user: { id: alice.userId, name: "Alice" },
    });
    const read = await api("GET", `/api/calendar/events/${event.id}`, { token: alice.token });
    expect(read.body.data).toEqual(moved.body.data);
  });

  it("deletes an event, after which it is 404 CALENDAR_EVENT_NOT_FOUND", async () => {
    const event = await createEvent(alice.token, { ...base, title: "Cancelled lab" });
    const deleted = await api("DELETE", `/api/calendar/events/${event.id}`, { token: alice.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: expect.any(String) });

    for (const [method, body] of byId) {
      const response = await api(method, `/api/calendar/events/${event.id}`, { token: alice.token, body });
      expect({ method, status: response.status, code: response.body.code }).toEqual({ method, status: 404, code: "CALENDAR_EVENT_NOT_FOUND" });
    }
    const unknown = await api("GET", `/api/calendar/events/${randomUUID()}`, { token: alice.token });
    expect([unknown.status, unknown.body.code]).toEqual([404, "CALENDAR_EVENT_NOT_FOUND"]);
    const malformed = await api("GET", "/api/calendar/events/not-an-id", { token: alice.token });
    expect([malformed.status, malformed.body.code]).toEqual([400, "VALIDATION_ERROR"]);
  });

  it("keeps users apart: another user's event and another user's course are 404", async () => {
    const event = await createEvent(alice.token, { ...base, title: "Alice's private study" });
    for (const [method, body] of byId) {
      const response = await api(method, `/api/calendar/events/${event.id}`, { token: bob.token, body });
      expect({ method, status: response.status, code: response.body.code }).toEqual({ method, status: 404, code: "CALENDAR_EVENT_NOT_FOUND" });
    }
    expect(ids(await list(bob.token))).not.toContain(event.id);
    const still = await api("GET", `/api/calendar/events/${event.id}`, { token: alice.token });
    expect(still.body.data).toEqual(event);

    const foreignCreate = await api("POST", "/api/calendar/events", { token: alice.token, body: { ...base, courseId: bobsCourse.id } });
    expect([foreignCreate.status, foreignCreate.body.code]).toEqual([404, "NOT_FOUND"]);
    const foreignPatch = await api("PATCH", `/api/calendar/events/${event.id}`, { token: alice.token, body: { courseId: bobsCourse.id } });
    expect([foreignPatch.status, foreignPatch.body.code]).toEqual([404, "NOT_FOUND"]);
    expect((await api("GET", `/api/calendar/events/${event.id}`, { token: alice.token })).body.data).toEqual(event);
  });

  it("answers 401 UNAUTHORIZED without a session on every calendar route", async () => {
    const id = randomUUID();
    const routes: [string, string, unknown?][] = [
      ["POST", "/api/calendar/events", base],
      ["GET", "/api/calendar/events"],
      ["GET", `/api/calendar/events/${id}`],
      ["PATCH", `/api/calendar/events/${id}`, { title: "x" }],
      ["DELETE", `/api/calendar/events/${id}`],
    ];
    for (const [method, path, body] of routes) {
      const response = await api(method, path, { body });
      expect({ method, path, status: response.status, code: response.body.code }).toEqual({ method, path, status: 401, code: "UNAUTHORIZED" });
    }
  });
});
