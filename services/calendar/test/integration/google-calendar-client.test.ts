import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  GOOGLE_ERRORS,
  startGoogleCalendarServer,
  type GoogleCalendarOperation,
  type GoogleErrorAnswer,
  type LocalGoogleCalendar,
} from "@study/testkit";
import { GoogleCalendarClient } from "../../src/adapters/google/google-calendar-client";
import {
  GoogleCalendarError,
  type GoogleEvent,
  type GoogleEventsQuery,
  type GoogleEventWrite,
} from "../../src/application/ports/google-calendar.port";
import { googleEventIdFor } from "../../src/domain/google-event";

/**
 * The adapter against the Calendar v3 stand-in: every call the sync and the push make, over HTTP with the
 * official client, and every refusal of Google's mapped to the port's failure kinds.
 */

const utc = (text: string) => new Date(text);
const window = { kind: "full", timeMin: utc("2026-12-01T00:00:00Z"), timeMax: utc("2027-01-01T00:00:00Z") } as const;
const PAGE_SIZE = 3;

function write(overrides: Partial<GoogleEventWrite> = {}): GoogleEventWrite {
  const studyEventId = overrides.studyEventId ?? randomUUID();
  return {
    id: googleEventIdFor(studyEventId),
    summary: "Linear algebra exam",
    description: "Chapters 1-4",
    location: "Room 101",
    start: { dateTime: utc("2026-12-10T09:00:00Z") },
    end: { dateTime: utc("2026-12-10T11:00:00Z") },
    colorId: "5",
    reminderMinutes: 15,
    ...overrides,
    studyEventId,
  };
}

async function failureOf(promise: Promise<unknown>): Promise<GoogleCalendarError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GoogleCalendarError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("GoogleCalendarClient against the Calendar v3 stand-in", () => {
  let google: LocalGoogleCalendar;
  let client: GoogleCalendarClient;

  beforeAll(async () => {
    google = await startGoogleCalendarServer();
    client = new GoogleCalendarClient({ rootUrl: google.rootUrl, maxResults: PAGE_SIZE, timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await google?.close();
  });

  /** A fresh Google account and a token for it. */
  function account() {
    const key = `user-${randomUUID()}`;
    return { key, token: google.issueToken(key) };
  }

  /** Every page of a listing, as the sync reads it. */
  async function listAll(token: string, query: GoogleEventsQuery) {
    const events: GoogleEvent[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await client.listEvents(token, "primary", { ...query, pageToken });
      pages++;
      events.push(...page.events);
      if (page.nextPageToken) {
        expect(page.nextSyncToken).toBeUndefined();
        pageToken = page.nextPageToken;
        continue;
      }
      if (page.nextSyncToken === undefined) throw new Error("the last page has no sync token");
      return { events, pages, syncToken: page.nextSyncToken };
    }
  }

  const listRequests = (key: string) => google.requests.filter((request) => request.account === key && request.operation === "events.list");

  test("a full listing pages through the window's events, maps them, and ends with a sync token", async () => {
    const { key, token } = account();
    for (let day = 1; day <= 7; day++) {
      google.addEvent(key, {
        summary: `Lecture ${day}`,
        description: "Eigenvalues",
        location: "Hall B",
        colorId: "7",
        start: { dateTime: `2026-12-${String(day + 1).padStart(2, "0")}T08:00:00Z` },
        end: { dateTime: `2026-12-${String(day + 1).padStart(2, "0")}T09:30:00+00:00` },
        reminders: {
          useDefault: false,
          overrides: [
            { method: "email", minutes: 60 },
            { method: "popup", minutes: 10 },
          ],
        },
      });
    }
    google.addEvent(key, { summary: "Before the window", start: { dateTime: "2026-11-20T08:00:00Z" }, end: { dateTime: "2026-11-20T09:00:00Z" } });
    const deleted = google.addEvent(key, {
      summary: "Deleted",
      start: { dateTime: "2026-12-20T08:00:00Z" },
      end: { dateTime: "2026-12-20T09:00:00Z" },
    });
    google.deleteEvent(key, deleted.id);

    const { events, pages } = await listAll(token, window);

    expect(pages).toBe(3);
    expect(events.map((event) => event.summary)).toEqual([1, 2, 3, 4, 5, 6, 7].map((day) => `Lecture ${day}`));
    expect(events[0]).toEqual({
      id: expect.any(String),
      status: "confirmed",
      summary: "Lecture 1",
      description: "Eigenvalues",
      location: "Hall B",
      colorId: "7",
      start: { dateTime: utc("2026-12-02T08:00:00Z") },
      end: { dateTime: utc("2026-12-02T09:30:00Z") },
      reminderMinutes: 10,
    });
    const requests = listRequests(key);
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.query).toMatchObject({
        singleEvents: "true",
        maxResults: String(PAGE_SIZE),
        timeMin: "2026-12-01T00:00:00.000Z",
        timeMax: "2027-01-01T00:00:00.000Z",
      });
      // A full sync leaves deleted events out, as Google does by default.
      expect(request.query.showDeleted).toBeUndefined();
      expect(request.query.syncToken).toBeUndefined();
      expect(request.path).toBe("/calendars/primary/events");
    }
    expect(requests.map((request) => request.query.pageToken === undefined)).toEqual([true, false, false]);
  });

  test("an incremental listing brings exactly the changes since the token: an edit, an addition, a deletion", async () => {
    const { key, token } = account();
    const kept = google.addEvent(key, { summary: "Seminar", start: { dateTime: "2026-12-03T10:00:00Z" }, end: { dateTime: "2026-12-03T11:00:00Z" } });
    const edited = google.addEvent(key, { summary: "Lab", start: { dateTime: "2026-12-04T10:00:00Z" }, end: { dateTime: "2026-12-04T11:00:00Z" } });
    const cancelled = google.addEvent(key, {
      summary: "Office hours",
      start: { dateTime: "2026-12-05T10:00:00Z" },
      end: { dateTime: "2026-12-05T11:00:00Z" },
    });
    const full = await listAll(token, window);
    expect(full.events.map((event) => event.id).sort()).toEqual([kept.id, edited.id, cancelled.id].sort());

    google.updateEvent(key, edited.id, {
      summary: "Lab (moved)",
      start: { dateTime: "2026-12-06T14:00:00Z" },
      end: { dateTime: "2026-12-06T15:00:00Z" },
    });
    const added = google.addEvent(key, {
      summary: "Study group",
      start: { dateTime: "2027-03-01T10:00:00Z" },
      end: { dateTime: "2027-03-01T12:00:00Z" },
    });
    google.deleteEvent(key, cancelled.id);

    const incremental = await listAll(token, { kind: "incremental", syncToken: full.syncToken });
    expect(incremental.events).toEqual([
      expect.objectContaining({ id: edited.id, status: "confirmed", summary: "Lab (moved)", start: { dateTime: utc("2026-12-06T14:00:00Z") } }),
      // Outside the full sync's window, still reported: the use case decides what to keep.
      expect.objectContaining({ id: added.id, status: "confirmed", summary: "Study group" }),
      { id: cancelled.id, status: "cancelled" },
    ]);
    const incrementalRequest = listRequests(key).at(-1);
    expect(incrementalRequest?.query).toEqual({
      singleEvents: "true",
      maxResults: String(PAGE_SIZE),
      syncToken: full.syncToken,
      showDeleted: "true",
    });

    // Nothing changed since: an empty page with a new token.
    const again = await listAll(token, { kind: "incremental", syncToken: incremental.syncToken });
    expect(again).toMatchObject({ events: [], pages: 1 });
  });

  test("a sync token Google no longer honours is sync_token_expired (410)", async () => {
    const { key, token } = account();
    google.addEvent(key, { summary: "Seminar", start: { dateTime: "2026-12-03T10:00:00Z" }, end: { dateTime: "2026-12-03T11:00:00Z" } });
    const { syncToken } = await listAll(token, window);
    google.expireSyncTokens(key);

    const error = await failureOf(client.listEvents(token, "primary", { kind: "incremental", syncToken }));
    expect(error).toMatchObject({ failure: "sync_token_expired", status: 410 });
    expect(error.message).toContain("fullSyncRequired");
    // A full sync gives a token that works again.
    const fresh = await listAll(token, window);
    await expect(client.listEvents(token, "primary", { kind: "incremental", syncToken: fresh.syncToken })).resolves.toMatchObject({ events: [] });
  });

  test("recurring events come as their instances inside the window, with Google's instance ids", async () => {
    const { key, token } = account();
    const weekly = google.addEvent(key, {
      summary: "Algebra lecture",
      start: { dateTime: "2026-11-17T09:00:00Z" },
      end: { dateTime: "2026-11-17T10:30:00Z" },
      recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=TU"],
    });
    const daily = google.addEvent(key, {
      summary: "Reading week",
      start: { date: "2026-12-28" },
      end: { date: "2026-12-29" },
      recurrence: ["RRULE:FREQ=DAILY;COUNT=7"],
    });
    google.cancelInstance(key, `${weekly.id}_20261215T090000Z`);

    const { events, syncToken } = await listAll(token, window);
    const tuesdays = ["20261201", "20261208", "20261222", "20261229"];
    expect(events.filter((event) => event.summary === "Algebra lecture")).toEqual(
      tuesdays.map((day) => ({
        id: `${weekly.id}_${day}T090000Z`,
        status: "confirmed",
        summary: "Algebra lecture",
        start: { dateTime: utc(`${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T09:00:00Z`) },
        end: { dateTime: utc(`${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6)}T10:30:00Z`) },
      })),
    );
    // The all-day series overlaps the window's end: only its December days, each keeping its date.
    expect(events.filter((event) => event.summary === "Reading week").map((event) => [event.id, event.start, event.end])).toEqual(
      ["28", "29", "30", "31"].map((day) => [
        `${daily.id}_202612${day}`,
        { date: `2026-12-${day}` },
        { date: day === "31" ? "2027-01-01" : `2026-12-${Number(day) + 1}` },
      ]),
    );

    // One instance moved in Google: only that instance is a change.
    google.updateInstance(key, `${weekly.id}_20261208T090000Z`, {
      start: { dateTime: "2026-12-09T09:00:00Z" },
      end: { dateTime: "2026-12-09T10:30:00Z" },
    });
    const moved = await listAll(token, { kind: "incremental", syncToken });
    expect(moved.events).toEqual([
      expect.objectContaining({ id: `${weekly.id}_20261208T090000Z`, start: { dateTime: utc("2026-12-09T09:00:00Z") } }),
    ]);

    // The all-day series deleted: every one of its instances is reported cancelled.
    google.deleteEvent(key, daily.id);
    const deleted = await listAll(token, { kind: "incremental", syncToken: moved.syncToken });
    expect(deleted.events).toEqual(
      ["28", "29", "30", "31"]
        .concat(["01", "02", "03"])
        .map((day, index) => ({ id: `${daily.id}_${index < 4 ? "202612" : "202701"}${day}`, status: "cancelled" })),
    );
  });

  test("an all-day event keeps its date", async () => {
    const { key, token } = account();
    const holiday = google.addEvent(key, { summary: "Winter break", start: { date: "2026-12-21" }, end: { date: "2027-01-04" } });
    const { events } = await listAll(token, window);
    expect(events).toEqual([
      { id: holiday.id, status: "confirmed", summary: "Winter break", start: { date: "2026-12-21" }, end: { date: "2027-01-04" } },
    ]);
  });

  test("insert, patch and delete round trip, and the study event id comes back on the list", async () => {
    const { key, token } = account();
    const event = write();

    await expect(client.insertEvent(token, "primary", event)).resolves.toEqual({ id: event.id });
    expect(google.event(key, event.id)).toMatchObject({
      summary: "Linear algebra exam",
      description: "Chapters 1-4",
      location: "Room 101",
      colorId: "5",
      start: { dateTime: "2026-12-10T09:00:00Z", timeZone: "UTC" },
      end: { dateTime: "2026-12-10T11:00:00Z", timeZone: "UTC" },
      reminders: { useDefault: false, overrides: [{ method: "popup", minutes: 15 }] },
      extendedProperties: { private: { studyEventId: event.studyEventId } },
    });
    const listed = await listAll(token, window);
    expect(listed.events).toEqual([
      {
        id: event.id,
        status: "confirmed",
        summary: "Linear algebra exam",
        description: "Chapters 1-4",
        location: "Room 101",
        colorId: "5",
        start: { dateTime: utc("2026-12-10T09:00:00Z") },
        end: { dateTime: utc("2026-12-10T11:00:00Z") },
        reminderMinutes: 15,
        studyEventId: event.studyEventId,
      },
    ]);

    // The same insert again (a retried push): Google says the id exists.
    await expect(failureOf(client.insertEvent(token, "primary", event))).resolves.toMatchObject({ failure: "duplicate", status: 409 });

    // A patch sends everything: cleared fields are removed, and the event may become an all-day one.
    const changed = {
      ...event,
      summary: "Exam (all day)",
      description: null,
      location: null,
      colorId: null,
      reminderMinutes: 0,
      start: { date: "2026-12-11" },
      end: { date: "2026-12-12" },
    };
    await client.patchEvent(token, "primary", event.id, changed);
    const stored = google.event(key, event.id);
    expect(stored).toMatchObject({
      summary: "Exam (all day)",
      start: { date: "2026-12-11" },
      end: { date: "2026-12-12" },
      reminders: { useDefault: false },
    });
    expect(stored).not.toHaveProperty("description");
    expect(stored).not.toHaveProperty("location");
    expect(stored).not.toHaveProperty("colorId");
    expect(stored).not.toHaveProperty("reminders.overrides");
    // And back to a timed event.
    await client.patchEvent(token, "primary", event.id, {
      ...changed,
      start: { dateTime: utc("2026-12-11T13:00:00Z") },
      end: { dateTime: utc("2026-12-11T14:00:00Z") },
    });
    expect(google.event(key, event.id)).toMatchObject({ start: { dateTime: "2026-12-11T13:00:00Z" }, end: { dateTime: "2026-12-11T14:00:00Z" } });

    const incremental = await listAll(token, { kind: "incremental", syncToken: listed.syncToken });
    expect(incremental.events).toEqual([expect.objectContaining({ id: event.id, summary: "Exam (all day)", studyEventId: event.studyEventId })]);

    await client.deleteEvent(token, "primary", event.id);
    expect(google.events(key)).toEqual([]);
    const afterDelete = await listAll(token, { kind: "incremental", syncToken: incremental.syncToken });
    expect(afterDelete.events).toEqual([{ id: event.id, status: "cancelled" }]);

    // Gone in Google: patching or deleting again is "gone" (410), and so is an id Google never had (404).
    await expect(failureOf(client.patchEvent(token, "primary", event.id, changed))).resolves.toMatchObject({ failure: "gone", status: 410 });
    await expect(failureOf(client.deleteEvent(token, "primary", event.id))).resolves.toMatchObject({ failure: "gone", status: 410 });
    await expect(failureOf(client.patchEvent(token, "primary", "unknown0000", changed))).resolves.toMatchObject({ failure: "gone", status: 404 });
    await expect(failureOf(client.deleteEvent(token, "primary", "unknown0000"))).resolves.toMatchObject({ failure: "gone", status: 404 });
    const calls = google.requests.filter((request) => request.account === key && request.operation !== "events.list");
    expect(calls.map((request) => [request.method, request.path, request.status])).toEqual([
      ["POST", "/calendars/primary/events", 200],
      ["POST", "/calendars/primary/events", 409],
      ["PATCH", `/calendars/primary/events/${event.id}`, 200],
      ["PATCH", `/calendars/primary/events/${event.id}`, 200],
      ["DELETE", `/calendars/primary/events/${event.id}`, 204],
      ["PATCH", `/calendars/primary/events/${event.id}`, 410],
      ["DELETE", `/calendars/primary/events/${event.id}`, 410],
      ["PATCH", "/calendars/primary/events/unknown0000", 404],
      ["DELETE", "/calendars/primary/events/unknown0000", 404],
    ]);
  });

  describe("Google's refusals become the port's failure kinds", () => {
    const operations: GoogleCalendarOperation[] = ["events.list", "events.insert", "events.patch", "events.delete"];
    const call = (operation: GoogleCalendarOperation, token: string): Promise<unknown> => {
      switch (operation) {
        case "events.list":
          return client.listEvents(token, "primary", window);
        case "events.insert":
          return client.insertEvent(token, "primary", write());
        case "events.patch":
          return client.patchEvent(token, "primary", "somewhere0000", write());
        case "events.delete":
          return client.deleteEvent(token, "primary", "somewhere0000");
      }
    };
    const refusals: Array<[string, GoogleCalendarError["failure"], GoogleErrorAnswer]> = [
      ["401 authError", "auth", GOOGLE_ERRORS.invalidCredentials],
      ["403 insufficientPermissions", "permission", GOOGLE_ERRORS.insufficientPermissions],
      ["403 rateLimitExceeded", "rate_limit", GOOGLE_ERRORS.rateLimitExceeded],
      ["403 userRateLimitExceeded", "rate_limit", GOOGLE_ERRORS.userRateLimitExceeded],
      ["429 rateLimitExceeded", "rate_limit", GOOGLE_ERRORS.tooManyRequests],
    ];

    test.each(operations.flatMap((operation) => refusals.map(([name, failure, answer]) => [operation, name, failure, answer] as const)))(
      "%s answered %s → %s, at once",
      async (operation, _name, failure, answer) => {
        const { key, token } = account();
        google.failNext(operation, answer);
        const error = await failureOf(call(operation, token));
        expect(error).toMatchObject({ failure, status: answer.status });
        expect(error.message).toContain(answer.reason);
        // A refusal is not retried, not even a rate limit: the caller decides when to come back.
        expect(google.requests.filter((request) => request.account === key)).toHaveLength(1);
      },
    );

    test("a token Google does not know, or no longer accepts, is auth (401)", async () => {
      await expect(failureOf(client.listEvents("ya29.forged", "primary", window))).resolves.toMatchObject({ failure: "auth", status: 401 });
      const { token } = account();
      google.revokeToken(token);
      await expect(failureOf(client.insertEvent(token, "primary", write()))).resolves.toMatchObject({ failure: "auth", status: 401 });
    });

    test.each(["events.list", "events.patch", "events.delete"] as const)("%s: a 500 is retried twice, then other", async (operation) => {
      const { key, token } = account();
      google.failNext(operation, GOOGLE_ERRORS.backendError, 3);
      await expect(failureOf(call(operation, token))).resolves.toMatchObject({ failure: "other", status: 500 });
      expect(google.requests.filter((request) => request.account === key).map((request) => request.status)).toEqual([500, 500, 500]);
    });

    test("a passing 500 on a list is absorbed by a retry", async () => {
      const { key, token } = account();
      google.failNext("events.list", GOOGLE_ERRORS.backendError);
      await expect(client.listEvents(token, "primary", window)).resolves.toMatchObject({ events: [] });
      expect(listRequests(key).map((request) => request.status)).toEqual([500, 200]);
    });

    test("an insert is not retried on a 500 (its consumer retries the push)", async () => {
      const { key, token } = account();
      google.failNext("events.insert", GOOGLE_ERRORS.backendError);
      await expect(failureOf(call("events.insert", token))).resolves.toMatchObject({ failure: "other", status: 500 });
      expect(google.requests.filter((request) => request.account === key)).toHaveLength(1);
    });

    test("a calendar Google does not have is other (404 on a list)", async () => {
      const { token } = account();
      await expect(failureOf(client.listEvents(token, "someone.else@example.com", window))).resolves.toMatchObject({ failure: "other", status: 404 });
    });

    test("no answer at all (connection refused, timeout) is other, without a status", async () => {
      const silent: Server = createServer(() => {
        // Never answers: the client's timeout has to end the call.
      });
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const port = (silent.address() as AddressInfo).port;
      try {
        const slow = new GoogleCalendarClient({ rootUrl: `http://127.0.0.1:${port}/`, timeoutMs: 300 });
        const started = Date.now();
        await expect(failureOf(slow.listEvents("ya29.any", "primary", window))).resolves.toMatchObject({ failure: "other", status: undefined });
        // Not retried: one timeout, not three.
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        silent.closeAllConnections();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
      const refused = new GoogleCalendarClient({ rootUrl: `http://127.0.0.1:${port}/`, timeoutMs: 1_000 });
      await expect(failureOf(refused.deleteEvent("ya29.any", "primary", "somewhere0000"))).resolves.toMatchObject({
        failure: "other",
        status: undefined,
      });
    });
  });
});
