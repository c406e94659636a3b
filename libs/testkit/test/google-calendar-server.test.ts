import { createHash, randomBytes } from "node:crypto";
import { startOidcProvider } from "../src/peers/oidc-provider";
import { GOOGLE_ERRORS, startGoogleCalendarServer, type LocalGoogleCalendar } from "../src/peers/google-calendar-server";

/**
 * The Calendar v3 stand-in's own strictness, over plain HTTP: the parameter checks, refusals and error bodies that
 * the adapter's test (services/calendar/test/integration/google-calendar-client.test.ts) does not reach.
 */

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: number; message: string; errors: Array<Record<string, string>>; status?: string } };
}

describe("Google Calendar v3 stand-in", () => {
  let google: LocalGoogleCalendar;
  let account: string;
  let token: string;

  beforeAll(async () => {
    google = await startGoogleCalendarServer({ authenticate: (candidate) => (candidate === "outside-token" ? "outsider" : undefined) });
  });

  afterAll(async () => {
    await google?.close();
  });

  beforeEach(() => {
    account = `user${randomBytes(4).toString("hex")}`;
    token = google.issueToken(account);
  });

  async function call(
    method: string,
    path: string,
    options: { query?: Record<string, string>; body?: unknown; token?: string | null } = {},
  ): Promise<Answer> {
    const url = new URL(`calendar/v3${path}`, google.rootUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = {};
    const bearer = options.token === undefined ? token : options.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Answer["body"]) : {} };
  }
  const list = (query: Record<string, string> = {}, options: { token?: string | null } = {}) =>
    call("GET", "/calendars/primary/events", { query, ...options });
  const timed = (from: string, to: string) => ({ start: { dateTime: from }, end: { dateTime: to } });
  /** Every page of a listing. */
  async function listAll(query: Record<string, string>) {
    const pages: Answer[] = [];
    let pageToken: string | undefined;
    do {
      const page = await list(pageToken ? { ...query, pageToken } : query);
      expect(page.status).toBe(200);
      pages.push(page);
      pageToken = page.body.nextPageToken as string | undefined;
    } while (pageToken);
    return {
      pages,
      items: pages.flatMap((page) => page.body.items as Array<Record<string, unknown>>),
      syncToken: pages.at(-1)?.body.nextSyncToken as string,
    };
  }

  test("authentication: no token, an unknown or revoked one are Google's 401s; authenticate() maps other tokens", async () => {
    expect(await list({}, { token: null })).toEqual({
      status: 401,
      body: {
        error: {
          code: 401,
          message: "Login Required.",
          errors: [{ message: "Login Required.", domain: "global", reason: "required", location: "Authorization", locationType: "header" }],
          status: "UNAUTHENTICATED",
        },
      },
    });
    const invalid = {
      status: 401,
      body: {
        error: {
          code: 401,
          message: "Invalid Credentials",
          errors: [{ message: "Invalid Credentials", domain: "global", reason: "authError", location: "Authorization", locationType: "header" }],
          status: "UNAUTHENTICATED",
        },
      },
    };
    expect(await list({}, { token: "ya29.unknown" })).toEqual(invalid);
    google.revokeToken(token);
    expect(await list({}, { token })).toEqual(invalid);

    google.addEvent("outsider", { summary: "Outside", ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") });
    const outside = await list({}, { token: "outside-token" });
    expect(outside.status).toBe(200);
    expect((outside.body.items as Array<{ summary: string }>).map((item) => item.summary)).toEqual(["Outside"]);
    expect(google.requests.at(-1)).toMatchObject({
      operation: "events.list",
      method: "GET",
      path: "/calendars/primary/events",
      account: "outsider",
      status: 200,
    });
  });

  test("a calendar is the account's primary one or its e-mail id; any other is 404 notFound", async () => {
    expect((await call("GET", `/calendars/${encodeURIComponent(google.calendarIdOf(account))}/events`)).status).toBe(200);
    const other = await call("GET", `/calendars/${encodeURIComponent(google.calendarIdOf("someone-else"))}/events`);
    expect(other).toEqual({
      status: 404,
      body: {
        error: { code: 404, message: "Not Found", errors: [{ message: "Not Found", domain: "global", reason: "notFound" }], status: "NOT_FOUND" },
      },
    });
    expect((await call("POST", "/calendars/nobody@example.com/events", { body: timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") })).status).toBe(
      404,
    );
  });

  test("events.list answers Google's collection, pages by maxResults and gives the sync token on the last page only", async () => {
    for (let day = 1; day <= 5; day++)
      google.addEvent(account, { summary: `Event ${day}`, ...timed(`2026-12-0${day}T10:00:00Z`, `2026-12-0${day}T11:00:00Z`) });
    const first = await list({ maxResults: "2", singleEvents: "true", orderBy: "startTime" });
    expect(first.body).toMatchObject({
      kind: "calendar#events",
      etag: expect.any(String),
      summary: google.calendarIdOf(account),
      updated: expect.any(String),
      timeZone: "UTC",
      accessRole: "owner",
      defaultReminders: [{ method: "popup", minutes: 30 }],
      nextPageToken: expect.any(String),
    });
    expect(first.body).not.toHaveProperty("nextSyncToken");
    const item = (first.body.items as Array<Record<string, unknown>>)[0];
    expect(item).toEqual({
      kind: "calendar#event",
      etag: expect.stringMatching(/^"\d+"$/),
      id: expect.stringMatching(/^[a-v0-9]{5,}$/),
      status: "confirmed",
      htmlLink: expect.stringMatching(/^https:\/\/www\.google\.com\/calendar\/event\?eid=/),
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      summary: "Event 1",
      creator: { email: google.calendarIdOf(account), self: true },
      organizer: { email: google.calendarIdOf(account), self: true },
      start: { dateTime: "2026-12-01T10:00:00Z" },
      end: { dateTime: "2026-12-01T11:00:00Z" },
      iCalUID: `${String(item.id)}@google.com`,
      sequence: 0,
      reminders: { useDefault: true },
      eventType: "default",
    });
    const all = await listAll({ maxResults: "2", singleEvents: "true", orderBy: "startTime" });
    expect(all.pages.map((page) => (page.body.items as unknown[]).length)).toEqual([2, 2, 1]);
    expect(all.items.map((event) => event.summary)).toEqual(["Event 1", "Event 2", "Event 3", "Event 4", "Event 5"]);
    expect(all.syncToken).toEqual(expect.any(String));
    // Beyond 2500 Google pages by 2500; below 1 is refused.
    expect((await list({ maxResults: "5000" })).status).toBe(200);
    expect(await list({ maxResults: "0" })).toMatchObject({
      status: 400,
      body: { error: { errors: [{ reason: "invalid", location: "maxResults" }] } },
    });
  });

  test("a page token is good only for the query and the account it came from", async () => {
    for (let day = 1; day <= 3; day++)
      google.addEvent(account, { summary: `Event ${day}`, ...timed(`2026-12-0${day}T10:00:00Z`, `2026-12-0${day}T11:00:00Z`) });
    const query = { maxResults: "1", singleEvents: "true", timeMin: "2026-11-30T00:00:00Z" };
    const first = await list(query);
    const pageToken = first.body.nextPageToken as string;
    const invalidPageToken = {
      status: 400,
      body: { error: { code: 400, errors: [{ reason: "invalid", location: "pageToken" }], status: "INVALID_ARGUMENT" } },
    };
    expect(await list({ ...query, timeMin: "2026-11-29T00:00:00Z", pageToken })).toMatchObject(invalidPageToken);
    expect(await list({ ...query, singleEvents: "false", pageToken })).toMatchObject(invalidPageToken);
    expect(await list({ ...query, pageToken: "made-up" })).toMatchObject(invalidPageToken);
    const stranger = google.issueToken("stranger");
    expect(await list({ ...query, pageToken }, { token: stranger })).toMatchObject(invalidPageToken);
    // The page size may change between pages.
    const second = await list({ ...query, maxResults: "5", pageToken });
    expect(second.status).toBe(200);
    expect((second.body.items as Array<{ summary: string }>).map((item) => item.summary)).toEqual(["Event 2", "Event 3"]);
  });

  test("a sync token refuses the parameters Google refuses next to it, and an unknown one is 410 fullSyncRequired", async () => {
    google.addEvent(account, { summary: "Seminar", ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") });
    const { syncToken } = await listAll({ singleEvents: "true" });
    for (const [name, value] of [
      ["timeMin", "2026-12-01T00:00:00Z"],
      ["timeMax", "2026-12-31T00:00:00Z"],
      ["orderBy", "updated"],
      ["q", "seminar"],
      ["updatedMin", "2026-12-01T00:00:00Z"],
      ["iCalUID", "x@google.com"],
      ["privateExtendedProperty", "studyEventId=1"],
    ]) {
      expect(await list({ singleEvents: "true", syncToken, [name]: value })).toMatchObject({
        status: 400,
        body: {
          error: {
            code: 400,
            errors: [{ domain: "global", reason: "invalid", location: name, locationType: "parameter" }],
            status: "INVALID_ARGUMENT",
          },
        },
      });
    }
    // Deletions are always part of an incremental answer.
    expect((await list({ singleEvents: "true", syncToken, showDeleted: "false" })).status).toBe(400);
    expect((await list({ singleEvents: "true", syncToken, showDeleted: "true" })).status).toBe(200);
    const gone = {
      status: 410,
      body: {
        error: {
          code: 410,
          message: "Sync token is no longer valid, a full sync is required.",
          errors: [
            {
              message: "Sync token is no longer valid, a full sync is required.",
              domain: "calendar",
              reason: "fullSyncRequired",
              location: "syncToken",
              locationType: "parameter",
            },
          ],
        },
      },
    };
    expect(await list({ singleEvents: "true", syncToken: "CPj-made-up" })).toEqual(gone);
    // A token is the account's own.
    expect(await list({ singleEvents: "true", syncToken }, { token: google.issueToken("stranger") })).toEqual(gone);
    google.expireSyncTokens();
    expect(await list({ singleEvents: "true", syncToken })).toEqual(gone);
  });

  test("list parameters are checked as Google checks them", async () => {
    expect(await list({ timeMin: "2026-12-01T00:00:00" })).toMatchObject({ status: 400, body: { error: { errors: [{ reason: "badRequest" }] } } });
    expect(await list({ timeMin: "2026-12-02T00:00:00Z", timeMax: "2026-12-01T00:00:00Z" })).toMatchObject({
      status: 400,
      body: { error: { errors: [{ reason: "timeRangeEmpty" }] } },
    });
    expect(await list({ orderBy: "startTime" })).toMatchObject({
      status: 400,
      body: { error: { errors: [{ reason: "invalid", location: "orderBy" }] } },
    });
    expect(await list({ singleEvents: "yes" })).toMatchObject({
      status: 400,
      body: { error: { errors: [{ reason: "invalid", location: "singleEvents" }] } },
    });
  });

  test("insert requires start and end of one kind, in order, with a valid and fresh id", async () => {
    const refusal = (reason: string, message?: string) => ({
      status: 400,
      body: { error: { code: 400, errors: [{ reason, ...(message ? { message } : {}) }], status: "INVALID_ARGUMENT" } },
    });
    const insert = (body: unknown) => call("POST", "/calendars/primary/events", { body });
    expect(await insert({ summary: "x", start: { dateTime: "2026-12-01T10:00:00Z" } })).toMatchObject(refusal("required", "Missing end time."));
    expect(await insert({ summary: "x", end: { dateTime: "2026-12-01T10:00:00Z" } })).toMatchObject(refusal("required", "Missing start time."));
    expect(await insert({ start: { dateTime: "2026-12-01T10:00:00" }, end: { dateTime: "2026-12-01T11:00:00" } })).toMatchObject(
      refusal("required", "Missing time zone definition for start time."),
    );
    expect(await insert({ start: { date: "2026-12-01" }, end: { dateTime: "2026-12-01T11:00:00Z" } })).toMatchObject(refusal("invalid"));
    expect(await insert(timed("2026-12-01T11:00:00Z", "2026-12-01T10:00:00Z"))).toMatchObject({
      status: 400,
      body: { error: { errors: [{ domain: "calendar", reason: "timeRangeEmpty", message: "The specified time range is empty." }] } },
    });
    expect(await insert({ start: { date: "2026-12-01" }, end: { date: "2026-12-01" } })).toMatchObject({
      status: 400,
      body: { error: { errors: [{ reason: "timeRangeEmpty" }] } },
    });
    expect(await insert({ id: "has-a-dash", ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") })).toMatchObject(
      refusal("invalid", "Invalid resource id value."),
    );
    expect(await insert({ id: "wxyz12345", ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") })).toMatchObject(
      refusal("invalid", "Invalid resource id value."),
    );
    expect(
      await insert({
        ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"),
        reminders: { useDefault: true, overrides: [{ method: "popup", minutes: 5 }] },
      }),
    ).toMatchObject(refusal("cannotUseDefaultRemindersAndSpecifyOverride"));
    expect(await insert({ ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"), colorId: "12" })).toMatchObject(refusal("invalid"));

    const created = await insert({ id: "abc0123456", summary: "Mine", ...timed("2026-12-01T10:00:00+01:00", "2026-12-01T11:00:00+01:00") });
    expect(created).toMatchObject({ status: 200, body: { kind: "calendar#event", id: "abc0123456", start: { dateTime: "2026-12-01T09:00:00Z" } } });
    expect(await insert({ id: "abc0123456", ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") })).toEqual({
      status: 409,
      body: {
        error: {
          code: 409,
          message: "The requested identifier already exists.",
          errors: [{ message: "The requested identifier already exists.", domain: "global", reason: "duplicate" }],
          status: "ALREADY_EXISTS",
        },
      },
    });
    expect((await call("POST", "/calendars/primary/events", { body: undefined })).status).toBe(400);
  });

  test("patch merges; patch and delete of a missing event are 404, of a deleted one 410 deleted", async () => {
    const event = google.addEvent(account, {
      summary: "Exam",
      description: "Bring a calculator",
      ...timed("2026-12-01T10:00:00Z", "2026-12-01T12:00:00Z"),
      extendedProperties: { private: { studyEventId: "s-1", other: "kept" } },
    });
    const patched = await call("PATCH", `/calendars/primary/events/${event.id}`, {
      body: { summary: "Final exam", extendedProperties: { private: { studyEventId: "s-2" } } },
    });
    expect(patched.body).toMatchObject({
      summary: "Final exam",
      description: "Bring a calculator",
      extendedProperties: { private: { studyEventId: "s-2", other: "kept" } },
    });
    // Moving an event raises its sequence.
    const moved = await call("PATCH", `/calendars/primary/events/${event.id}`, {
      body: { start: { dateTime: "2026-12-02T10:00:00Z" }, end: { dateTime: "2026-12-02T12:00:00Z" } },
    });
    expect(moved.body).toMatchObject({ sequence: 1, start: { dateTime: "2026-12-02T10:00:00Z" } });
    // A switch of kind without clearing the other key leaves both: Google refuses.
    expect(
      (await call("PATCH", `/calendars/primary/events/${event.id}`, { body: { start: { date: "2026-12-02" }, end: { date: "2026-12-03" } } })).status,
    ).toBe(400);

    expect(await call("PATCH", "/calendars/primary/events/nothing000", { body: { summary: "x" } })).toMatchObject({
      status: 404,
      body: { error: { errors: [{ reason: "notFound" }] } },
    });
    expect((await call("DELETE", "/calendars/primary/events/nothing000")).status).toBe(404);
    expect(await call("DELETE", `/calendars/primary/events/${event.id}`)).toEqual({ status: 204, body: {} });
    const deleted = {
      status: 410,
      body: {
        error: {
          code: 410,
          message: "Resource has been deleted",
          errors: [{ message: "Resource has been deleted", domain: "global", reason: "deleted" }],
        },
      },
    };
    expect(await call("DELETE", `/calendars/primary/events/${event.id}`)).toEqual(deleted);
    expect(await call("PATCH", `/calendars/primary/events/${event.id}`, { body: { summary: "again" } })).toEqual(deleted);
    // Still there for a sync, as cancelled.
    expect(google.event(account, event.id)).toMatchObject({ id: event.id, status: "cancelled" });
    expect(google.events(account)).toEqual([]);
    expect(google.events(account, { showDeleted: true })).toEqual([expect.objectContaining({ id: event.id, status: "cancelled" })]);
  });

  test("recurring events: the series without singleEvents, its instances with it, instance patches as exceptions", async () => {
    const series = google.addEvent(account, {
      summary: "Tutorial",
      ...timed("2026-12-01T15:00:00Z", "2026-12-01T16:00:00Z"),
      recurrence: ["RRULE:FREQ=DAILY;COUNT=5"],
    });
    const window = { timeMin: "2026-12-02T00:00:00Z", timeMax: "2026-12-04T00:00:00Z" };
    const masters = await list({ ...window, singleEvents: "false" });
    expect(masters.body.items).toEqual([
      expect.objectContaining({ id: series.id, recurrence: ["RRULE:FREQ=DAILY;COUNT=5"], start: { dateTime: "2026-12-01T15:00:00Z" } }),
    ]);
    const singles = await listAll({ ...window, singleEvents: "true" });
    expect(singles.items).toEqual(
      ["02", "03"].map((day) =>
        expect.objectContaining({
          id: `${series.id}_202612${day}T150000Z`,
          recurringEventId: series.id,
          originalStartTime: { dateTime: `2026-12-${day}T15:00:00Z` },
          start: { dateTime: `2026-12-${day}T15:00:00Z` },
          end: { dateTime: `2026-12-${day}T16:00:00Z` },
        }),
      ),
    );
    expect(singles.items[0]).not.toHaveProperty("recurrence");

    const instanceId = `${series.id}_20261203T150000Z`;
    expect((await call("PATCH", `/calendars/primary/events/${instanceId}`, { body: { summary: "Tutorial (room change)" } })).body).toMatchObject({
      id: instanceId,
      summary: "Tutorial (room change)",
      recurringEventId: series.id,
    });
    expect((await call("PATCH", `/calendars/primary/events/${series.id}_20261203T160000Z`, { body: { summary: "no such instance" } })).status).toBe(
      404,
    );
    const changes = await listAll({ singleEvents: "true", syncToken: singles.syncToken });
    expect(changes.items).toEqual([expect.objectContaining({ id: instanceId, summary: "Tutorial (room change)" })]);

    expect((await call("DELETE", `/calendars/primary/events/${series.id}_20261204T150000Z`)).status).toBe(204);
    const afterDelete = await listAll({ singleEvents: "true", syncToken: changes.syncToken });
    expect(afterDelete.items).toEqual([
      {
        kind: "calendar#event",
        etag: expect.any(String),
        id: `${series.id}_20261204T150000Z`,
        status: "cancelled",
        recurringEventId: series.id,
        originalStartTime: { dateTime: "2026-12-04T15:00:00Z" },
      },
    ]);
    // Without singleEvents the series' changed instances come apart from it.
    const exceptions = await listAll({ singleEvents: "false", showDeleted: "true" });
    expect(exceptions.items.map((item) => item.id)).toEqual([series.id, instanceId, `${series.id}_20261204T150000Z`]);
    // A full listing leaves the deleted instance out.
    const full = await listAll({ singleEvents: "true" });
    expect(full.items.map((item) => item.id)).toEqual(["01", "02", "03", "05"].map((day) => `${series.id}_202612${day}T150000Z`));
  });

  test("an instance moved into or out of a window is listed where it now is; all-day instances are named by their date", async () => {
    const series = google.addEvent(account, {
      summary: "Lab",
      ...timed("2026-12-01T08:00:00Z", "2026-12-01T09:00:00Z"),
      recurrence: ["RRULE:FREQ=DAILY;COUNT=5"],
    });
    google.updateInstance(account, `${series.id}_20261205T080000Z`, timed("2026-12-02T18:00:00Z", "2026-12-02T19:00:00Z"));
    google.updateInstance(account, `${series.id}_20261202T080000Z`, timed("2026-12-10T08:00:00Z", "2026-12-10T09:00:00Z"));
    const { items } = await listAll({ singleEvents: "true", orderBy: "startTime", timeMin: "2026-12-02T00:00:00Z", timeMax: "2026-12-04T00:00:00Z" });
    expect(items.map((item) => [item.id, item.start, item.originalStartTime])).toEqual([
      [`${series.id}_20261205T080000Z`, { dateTime: "2026-12-02T18:00:00Z" }, { dateTime: "2026-12-05T08:00:00Z" }],
      [`${series.id}_20261203T080000Z`, { dateTime: "2026-12-03T08:00:00Z" }, { dateTime: "2026-12-03T08:00:00Z" }],
    ]);

    const allDay = google.addEvent(account, {
      summary: "Fair",
      start: { date: "2026-12-01" },
      end: { date: "2026-12-02" },
      recurrence: ["RRULE:FREQ=DAILY;COUNT=3"],
    });
    expect(google.event(account, `${allDay.id}_20261202`)).toMatchObject({
      start: { date: "2026-12-02" },
      end: { date: "2026-12-03" },
      originalStartTime: { date: "2026-12-02" },
    });
    expect(google.event(account, `${allDay.id}_20261202T000000Z`)).toBeUndefined();
    expect(google.event(account, `${series.id}_20261202`)).toBeUndefined();
  });

  test("failNext answers Google's error bodies, once per call asked, for that operation only", async () => {
    google.failNext("events.insert", GOOGLE_ERRORS.insufficientPermissions);
    google.failNext("events.list", GOOGLE_ERRORS.tooManyRequests);
    google.failNext("events.list", GOOGLE_ERRORS.userRateLimitExceeded);
    google.failNext("events.delete", GOOGLE_ERRORS.backendError);
    expect(await list()).toEqual({
      status: 429,
      body: {
        error: {
          code: 429,
          message: "Rate Limit Exceeded",
          errors: [{ message: "Rate Limit Exceeded", domain: "usageLimits", reason: "rateLimitExceeded" }],
          status: "RESOURCE_EXHAUSTED",
        },
      },
    });
    expect(await list()).toMatchObject({
      status: 403,
      body: { error: { errors: [{ domain: "usageLimits", reason: "userRateLimitExceeded" }], status: "PERMISSION_DENIED" } },
    });
    expect((await list()).status).toBe(200);
    expect(await call("POST", "/calendars/primary/events", { body: timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") })).toEqual({
      status: 403,
      body: {
        error: {
          code: 403,
          message: "Request had insufficient authentication scopes.",
          errors: [{ message: "Request had insufficient authentication scopes.", domain: "global", reason: "insufficientPermissions" }],
          status: "PERMISSION_DENIED",
        },
      },
    });
    expect(await call("DELETE", "/calendars/primary/events/whatever00")).toMatchObject({
      status: 500,
      body: { error: { code: 500, errors: [{ reason: "backendError" }] } },
    });
    // The failures were used up.
    expect((await call("POST", "/calendars/primary/events", { body: timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") })).status).toBe(200);
    // Unused ones wait for the next calls, unless cleared.
    google.failNext("events.list", GOOGLE_ERRORS.backendError, 2);
    google.clearFailures();
    expect((await list()).status).toBe(200);
    const mine = google.requests.filter((request) => request.account === account);
    expect(mine.map((request) => `${request.operation} ${request.status}`)).toEqual([
      "events.list 429",
      "events.list 403",
      "events.list 200",
      "events.insert 403",
      "events.delete 500",
      "events.insert 200",
      "events.list 200",
    ]);
  });

  test("the controls refuse what Google would refuse", () => {
    expect(() => google.addEvent(account, { summary: "No end", start: { dateTime: "2026-12-01T10:00:00Z" } })).toThrow(
      /400 required.*Missing end time/,
    );
    expect(() => google.updateEvent(account, "nothing000", { summary: "x" })).toThrow(/no event/);
    const series = google.addEvent(account, { ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z"), recurrence: ["RRULE:FREQ=WEEKLY;COUNT=2"] });
    expect(() => google.cancelInstance(account, `${series.id}_20261202T100000Z`)).toThrow(/not an instance/);
  });

  test("the OIDC stand-in's access tokens can be accepted through subjectOf", async () => {
    const oidc = await startOidcProvider();
    const withOidc = await startGoogleCalendarServer({ authenticate: (candidate) => oidc.subjectOf(candidate) });
    try {
      oidc.signInAs({ sub: "google-sub-1", email: "ada@example.com", name: "Ada" });
      const verifier = randomBytes(32).toString("base64url");
      const authorize = new URL(`${oidc.issuer}/authorize`);
      const redirectUri = "http://127.0.0.1:1/callback";
      for (const [name, value] of Object.entries({
        client_id: oidc.clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "openid email https://www.googleapis.com/auth/calendar.events",
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
      })) {
        authorize.searchParams.set(name, value);
      }
      const redirect = await fetch(authorize, { redirect: "manual" });
      const code = new URL(redirect.headers.get("location") ?? "").searchParams.get("code") ?? "";
      const tokens = await fetch(`${oidc.issuer}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: oidc.clientId,
          client_secret: oidc.clientSecret,
        }),
      });
      const { access_token: accessToken } = (await tokens.json()) as { access_token: string };
      expect(oidc.subjectOf(accessToken)).toBe("google-sub-1");
      expect(oidc.subjectOf("ya29.unknown")).toBeUndefined();

      withOidc.addEvent("google-sub-1", { summary: "Ada's", ...timed("2026-12-01T10:00:00Z", "2026-12-01T11:00:00Z") });
      const answer = await fetch(new URL("calendar/v3/calendars/primary/events", withOidc.rootUrl), {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { items: Array<{ summary: string }> }).items.map((item) => item.summary)).toEqual(["Ada's"]);
    } finally {
      await withOidc.close();
      await oidc.close();
    }
  });
});
