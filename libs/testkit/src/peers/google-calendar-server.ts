import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type NextFunction, type Request, type Response } from "express";
import { rrulestr } from "rrule";

/**
 * A local Google Calendar on loopback that speaks the Calendar API v3 REST protocol (`/calendar/v3/…`) for the
 * calls a sync client makes: events.list (full, paged, incremental with sync tokens, recurring events expanded with
 * `singleEvents`), events.insert, events.patch and events.delete, with Google's parameter checks and Google's error
 * bodies `{"error": {"code", "message", "errors": [{"message", "domain", "reason", …}], "status"}}`. Point the
 * official client at it with `rootUrl: server.rootUrl`.
 *
 * One calendar per account (its primary calendar, also reachable by the account's e-mail id), in UTC. Tests act
 * as the user in Google through the controls (add, update, delete events and instances of recurring ones), make
 * Google forget sync tokens, inject Google's error answers, and read the events and the requests made.
 *
 * Authentication as Google answers it: no bearer token is 401 `required` "Login Required.", an unknown or revoked
 * one 401 `authError` "Invalid Credentials" (both UNAUTHENTICATED).
 *
 * Where Google's behaviour is not documented, the choices are written next to the code; in short:
 * - recurrences are expanded in UTC (the calendar's zone here), so a rule does not follow a DST shift;
 * - an open-ended recurrence (no COUNT/UNTIL) is expanded up to `recurrenceHorizonDays` ahead when the request has
 *   no `timeMax` (an incremental listing never has one): Google also cuts such expansions somewhere;
 * - a recurring event deleted as a whole appears in an incremental listing with `singleEvents` as every one of its
 *   instances cancelled (each instance id the client may have stored), each `{kind, etag, id, status, recurringEventId,
 *   originalStartTime}`; the exact texts of a few 400 answers are not Google's verbatim (code and reason are).
 */

export type GoogleCalendarOperation = "events.list" | "events.insert" | "events.patch" | "events.delete";

export type GoogleEventDateTimeInput = { dateTime: string | Date; timeZone?: string } | { date: string };

/** An event as a test creates or changes it in Google (Google's own field names and shapes). */
export interface GoogleCalendarEventInput {
  /** Google's alphabet: base32hex (0-9, a-v), 5-1024 characters; generated when absent. */
  id?: string;
  status?: "confirmed" | "tentative" | "cancelled";
  summary?: string | null;
  description?: string | null;
  location?: string | null;
  colorId?: string | null;
  start?: GoogleEventDateTimeInput;
  end?: GoogleEventDateTimeInput;
  /** RFC 5545 lines, e.g. `["RRULE:FREQ=WEEKLY;COUNT=10"]`. */
  recurrence?: string[] | null;
  reminders?: { useDefault: boolean; overrides?: Array<{ method: "email" | "popup"; minutes: number }> };
  extendedProperties?: { private?: Record<string, string>; shared?: Record<string, string> };
}

/** A `calendar#event` resource, as the API answers it. */
export type GoogleCalendarEventResource = Record<string, unknown> & { id: string; status: string };

export interface GoogleCalendarRequest {
  operation: GoogleCalendarOperation | "unknown";
  method: string;
  path: string;
  query: Record<string, string>;
  /** The account the bearer token belongs to, when it belongs to one. */
  account?: string;
  status: number;
}

/** An error answer of Google's (the body is built as Google builds it: domain and status from the reason and code). */
export interface GoogleErrorAnswer {
  status: number;
  reason: string;
  message: string;
  domain?: string;
  location?: string;
  locationType?: string;
}

export interface GoogleCalendarServerOptions {
  /**
   * Who a bearer token belongs to (an account key), or undefined when Google would refuse it. Tokens from
   * `issueToken` are always accepted; pass e.g. `(token) => oidc.subjectOf(token)` to accept the OIDC stand-in's.
   */
  authenticate?: (accessToken: string) => string | undefined;
  /** The account's e-mail (its calendar id); default: the key when it looks like one, else `<key>@example.com`. */
  emailOf?: (accountKey: string) => string;
  /** How far ahead an open-ended recurrence is expanded when the request sets no timeMax (default 730 days). */
  recurrenceHorizonDays?: number;
}

export interface LocalGoogleCalendar {
  /** `http://127.0.0.1:<port>/`: the official client's `rootUrl`. */
  rootUrl: string;
  /** A bearer token of this account (the default `authenticate` accepts exactly these). */
  issueToken(accountKey: string): string;
  /** Google stops accepting the token (the user revoked the app's access): 401 authError. */
  revokeToken(accessToken: string): void;
  /** The account's calendar id (its e-mail); `primary` names the same calendar. */
  calendarIdOf(accountKey: string): string;
  /** The user adds an event in Google (a recurring one with `recurrence`, an all-day one with `{date}`). */
  addEvent(accountKey: string, event: GoogleCalendarEventInput): GoogleCalendarEventResource;
  /** The user edits an event (the whole series of a recurring one); null clears a field. */
  updateEvent(accountKey: string, eventId: string, changes: GoogleCalendarEventInput): GoogleCalendarEventResource;
  /** The user deletes an event (a whole series): Google keeps it as cancelled, and syncs report it so. */
  deleteEvent(accountKey: string, eventId: string): void;
  /** The user edits one instance of a recurring event (`<eventId>_<YYYYMMDDTHHMMSSZ>` or `_<YYYYMMDD>`). */
  updateInstance(accountKey: string, instanceId: string, changes: GoogleCalendarEventInput): GoogleCalendarEventResource;
  /** The user deletes one instance of a recurring event. */
  cancelInstance(accountKey: string, instanceId: string): void;
  /** The account's events as stored (recurring ones as their master), cancelled ones only with `showDeleted`. */
  events(accountKey: string, options?: { showDeleted?: boolean }): GoogleCalendarEventResource[];
  /** One event or instance by id, cancelled ones included, as events.get would answer it. */
  event(accountKey: string, eventId: string): GoogleCalendarEventResource | undefined;
  /** Google forgets the sync tokens it gave (of one account, or all): the next incremental listing gets 410. */
  expireSyncTokens(accountKey?: string): void;
  /** The next `times` calls of the operation (default 1) get this error answer instead. */
  failNext(operation: GoogleCalendarOperation, answer: GoogleErrorAnswer, times?: number): void;
  /** Drops the injected failures not used yet (they would otherwise answer the next calls of their operation). */
  clearFailures(): void;
  /** Every request answered under /calendar/v3, in order. */
  requests: GoogleCalendarRequest[];
  close(): Promise<void>;
}

/** Google's error answers as the Calendar API gives them, for `failNext`. */
export const GOOGLE_ERRORS = {
  invalidCredentials: { status: 401, reason: "authError", message: "Invalid Credentials", location: "Authorization", locationType: "header" },
  insufficientPermissions: { status: 403, reason: "insufficientPermissions", message: "Request had insufficient authentication scopes." },
  rateLimitExceeded: { status: 403, reason: "rateLimitExceeded", message: "Rate Limit Exceeded" },
  userRateLimitExceeded: { status: 403, reason: "userRateLimitExceeded", message: "User Rate Limit Exceeded" },
  tooManyRequests: { status: 429, reason: "rateLimitExceeded", message: "Rate Limit Exceeded" },
  backendError: { status: 500, reason: "backendError", message: "Backend Error" },
} satisfies Record<string, GoogleErrorAnswer>;

const DAY_MS = 86_400_000;
const MAX_RESULTS_DEFAULT = 250;
const MAX_RESULTS_CAP = 2500;
const EVENT_ID = /^[a-v0-9]{5,1024}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** RFC 3339 with a zone (Google refuses timeMin/timeMax without one). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const GOOGLE_COLOR_IDS = new Set(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"]);
/** Parameters Google refuses next to a syncToken (events.list reference, `syncToken`). */
const NOT_WITH_SYNC_TOKEN = ["timeMin", "timeMax", "orderBy", "q", "updatedMin", "iCalUID", "privateExtendedProperty", "sharedExtendedProperty"];
const USAGE_LIMIT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "dailyLimitExceeded"]);
const CALENDAR_REASONS = new Set(["fullSyncRequired", "timeRangeEmpty", "cannotUseDefaultRemindersAndSpecifyOverride"]);
/** Google's canonical status names; 410 has none, and Google's 410 bodies carry none. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ALREADY_EXISTS",
  412: "FAILED_PRECONDITION",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

class GoogleApiError extends Error {
  constructor(readonly answer: GoogleErrorAnswer) {
    super(answer.message);
  }
}

const fail = (answer: GoogleErrorAnswer): never => {
  throw new GoogleApiError(answer);
};
const badParameter = (message: string, location: string): never =>
  fail({ status: 400, reason: "invalid", message, location, locationType: "parameter" });

function errorBody(answer: GoogleErrorAnswer) {
  const domain =
    answer.domain ?? (USAGE_LIMIT_REASONS.has(answer.reason) ? "usageLimits" : CALENDAR_REASONS.has(answer.reason) ? "calendar" : "global");
  const detail: Record<string, string> = { message: answer.message, domain, reason: answer.reason };
  if (answer.location) detail.location = answer.location;
  if (answer.locationType) detail.locationType = answer.locationType;
  const status = STATUS_NAMES[answer.status];
  return { error: { code: answer.status, message: answer.message, errors: [detail], ...(status ? { status } : {}) } };
}

/** Stored time: an instant (with the zone the user gave, for the answer) or a whole day. */
type StoredTime = { instant: Date; timeZone?: string } | { date: string };

interface EventFields {
  status: "confirmed" | "tentative" | "cancelled";
  summary?: string;
  description?: string;
  location?: string;
  colorId?: string;
  start: StoredTime;
  end: StoredTime;
  reminders: { useDefault: boolean; overrides?: Array<{ method: string; minutes: number }> };
  extendedProperties?: { private?: Record<string, string>; shared?: Record<string, string> };
}

/** A change of one instance of a recurring event (Google's "exception"). */
interface InstanceException {
  originalStart: StoredTime;
  fields: EventFields;
  changeSeq: number;
  updated: Date;
  sequence: number;
}

interface StoredEvent extends EventFields {
  id: string;
  recurrence?: string[];
  created: Date;
  updated: Date;
  sequence: number;
  /** The account's change counter at this event's last change (what sync tokens compare). */
  changeSeq: number;
  /** Keyed by the instance id suffix (the original start's stamp). */
  exceptions: Map<string, InstanceException>;
}

interface Account {
  key: string;
  email: string;
  events: Map<string, StoredEvent>;
  changeSeq: number;
}

/** One item of a listing with what filtering and ordering need. */
interface Row {
  resource: GoogleCalendarEventResource;
  start: Date;
  end: Date;
  changeSeq: number;
  updated: Date;
  cancelled: boolean;
}

interface PagedListing {
  account: string;
  /** The query without pageToken/maxResults: a page token is only good for the same query. */
  signature: string;
  rows: Row[];
  offset: number;
  /** The change counter when the listing was made: the sync token given on its last page. */
  syncSeq: number;
}

const opaque = () => randomBytes(18).toString("base64url");
const newEventId = () => {
  const alphabet = "0123456789abcdefghijklmnopqrstuv";
  return Array.from(randomBytes(26), (byte) => alphabet[byte % 32]).join("");
};
const midnight = (date: string) => new Date(`${date}T00:00:00.000Z`);
const instantOf = (time: StoredTime) => ("date" in time ? midnight(time.date) : time.instant);
const isoDate = (instant: Date) => instant.toISOString().slice(0, 10);
/** Google's dateTime: RFC 3339 without fractions; the calendar is in UTC. */
const rfc3339 = (instant: Date) => `${instant.toISOString().slice(0, 19)}Z`;
const stampOf = (time: StoredTime) => ("date" in time ? time.date.replace(/-/g, "") : rfc3339(time.instant).replace(/[-:]/g, ""));
const timeResource = (time: StoredTime) =>
  "date" in time ? { date: time.date } : { dateTime: rfc3339(time.instant), ...(time.timeZone ? { timeZone: time.timeZone } : {}) };
/** Shifts a time by `ms` keeping its kind (whole days for all-day times). */
const shifted = (time: StoredTime, ms: number): StoredTime =>
  "date" in time
    ? { date: isoDate(new Date(midnight(time.date).getTime() + ms)) }
    : { instant: new Date(time.instant.getTime() + ms), timeZone: time.timeZone };

function parseTime(input: unknown, which: "start" | "end"): StoredTime {
  if (typeof input !== "object" || input === null) return fail({ status: 400, reason: "required", message: `Missing ${which} time.` });
  const time = input as { date?: unknown; dateTime?: unknown; timeZone?: unknown };
  const present = (value: unknown) => value !== undefined && value !== null;
  if (present(time.date) && present(time.dateTime)) {
    return fail({ status: 400, reason: "invalid", message: `Invalid ${which} time.`, location: which, locationType: "parameter" });
  }
  if (time.date !== undefined && time.date !== null) {
    if (typeof time.date !== "string" || !ISO_DATE.test(time.date) || isoDate(midnight(time.date)) !== time.date) {
      return fail({ status: 400, reason: "invalid", message: `Invalid ${which} date.`, location: `${which}.date`, locationType: "parameter" });
    }
    return { date: time.date };
  }
  if (time.dateTime === undefined || time.dateTime === null) return fail({ status: 400, reason: "required", message: `Missing ${which} time.` });
  const timeZone = typeof time.timeZone === "string" ? time.timeZone : undefined;
  if (!(time.dateTime instanceof Date) && typeof time.dateTime !== "string") {
    return fail({ status: 400, reason: "invalid", message: `Invalid ${which} time.`, location: `${which}.dateTime`, locationType: "parameter" });
  }
  const text = time.dateTime instanceof Date ? time.dateTime.toISOString() : time.dateTime;
  if (!RFC3339.test(text)) {
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(text) && timeZone === undefined) {
      return fail({ status: 400, reason: "required", message: `Missing time zone definition for ${which} time.` });
    }
    // A zone-less local time with a timeZone is Google's too; here only UTC and offsets are understood.
    if (timeZone !== "UTC" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(text)) {
      return fail({ status: 400, reason: "invalid", message: `Invalid ${which} time.`, location: `${which}.dateTime`, locationType: "parameter" });
    }
    return { instant: new Date(`${text}Z`), timeZone };
  }
  const instant = new Date(text);
  if (Number.isNaN(instant.getTime())) {
    return fail({ status: 400, reason: "invalid", message: `Invalid ${which} time.`, location: `${which}.dateTime`, locationType: "parameter" });
  }
  return { instant, timeZone };
}

const optionalText = (value: unknown, field: string): string | undefined => {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string")
    return fail({ status: 400, reason: "invalid", message: `Invalid value for ${field}.`, location: field, locationType: "parameter" });
  return value;
};

function parseReminders(input: unknown): EventFields["reminders"] {
  if (input === undefined || input === null) return { useDefault: true };
  const reminders = input as { useDefault?: unknown; overrides?: unknown };
  const useDefault = reminders.useDefault === true;
  const overrides = Array.isArray(reminders.overrides) ? (reminders.overrides as Array<{ method?: unknown; minutes?: unknown }>) : undefined;
  if (useDefault && overrides && overrides.length > 0) {
    return fail({
      status: 400,
      reason: "cannotUseDefaultRemindersAndSpecifyOverride",
      message: "Cannot specify both default reminders and overrides at the same time.",
    });
  }
  const parsed = (overrides ?? []).map((override) => {
    if (
      (override.method !== "popup" && override.method !== "email") ||
      typeof override.minutes !== "number" ||
      override.minutes < 0 ||
      override.minutes > 40_320
    ) {
      return fail({
        status: 400,
        reason: "invalid",
        message: "Invalid reminder override.",
        location: "reminders.overrides",
        locationType: "parameter",
      });
    }
    return { method: override.method, minutes: override.minutes };
  });
  return useDefault ? { useDefault } : { useDefault, overrides: parsed };
}

function checkTimes(fields: Pick<EventFields, "start" | "end">): void {
  if ("date" in fields.start !== "date" in fields.end) {
    fail({ status: 400, reason: "invalid", message: "Start and end times must either both be date or both be dateTime." });
  }
  const [start, end] = [instantOf(fields.start), instantOf(fields.end)];
  // A timed event may last no time at all; an all-day one lasts at least its day.
  if (end.getTime() < start.getTime() || ("date" in fields.end && end.getTime() === start.getTime())) {
    fail({
      status: 400,
      reason: "timeRangeEmpty",
      message: "The specified time range is empty.",
      location: "date" in fields.end ? "end.date" : "end.dateTime",
      locationType: "parameter",
    });
  }
}

/** Applies a write (insert: onto nothing; patch: onto the current fields, where null clears and objects merge). */
function applyWrite(current: EventFields | undefined, body: Record<string, unknown>): EventFields {
  const has = (field: string) => Object.prototype.hasOwnProperty.call(body, field);
  const text = (field: "summary" | "description" | "location") => (has(field) ? optionalText(body[field], field) : current?.[field]);
  let colorId = has("colorId") ? optionalText(body.colorId, "colorId") : current?.colorId;
  if (colorId !== undefined && !GOOGLE_COLOR_IDS.has(colorId)) {
    colorId = fail({ status: 400, reason: "invalid", message: "Invalid event colorId value.", location: "colorId", locationType: "parameter" });
  }
  // Patch semantics again: start and end merge with the current ones, so switching kinds needs the other key null.
  const time = (which: "start" | "end") => {
    const incoming = body[which];
    if (incoming === undefined || incoming === null) return current?.[which];
    const base = current && typeof incoming === "object" ? timeResource(current[which]) : {};
    return parseTime(typeof incoming === "object" ? { ...base, ...incoming } : incoming, which);
  };
  const [start, end] = [time("start"), time("end")];
  if (!start) return fail({ status: 400, reason: "required", message: "Missing start time." });
  if (!end) return fail({ status: 400, reason: "required", message: "Missing end time." });
  const status = has("status") ? body.status : (current?.status ?? "confirmed");
  if (status !== "confirmed" && status !== "tentative" && status !== "cancelled") {
    return fail({ status: 400, reason: "invalid", message: "Invalid event status.", location: "status", locationType: "parameter" });
  }
  let extendedProperties = current?.extendedProperties;
  if (has("extendedProperties")) {
    const incoming = (body.extendedProperties ?? {}) as { private?: Record<string, unknown> | null; shared?: Record<string, unknown> | null };
    // Patch semantics: nested objects merge key by key; a null property removes it.
    const merge = (before: Record<string, string> | undefined, after: Record<string, unknown> | null | undefined) => {
      if (after === undefined) return before;
      if (after === null) return undefined;
      const merged = new Map(Object.entries(current && before ? before : {}));
      for (const [key, value] of Object.entries(after)) {
        if (value === null) merged.delete(key);
        else if (typeof value === "string") merged.set(key, value);
        else
          fail({
            status: 400,
            reason: "invalid",
            message: "Invalid extended property value.",
            location: "extendedProperties",
            locationType: "parameter",
          });
      }
      return Object.fromEntries(merged);
    };
    extendedProperties = {
      private: merge(extendedProperties?.private, incoming.private),
      shared: merge(extendedProperties?.shared, incoming.shared),
    };
  }
  const fields: EventFields = {
    status,
    summary: text("summary"),
    description: text("description"),
    location: text("location"),
    colorId,
    start,
    end,
    reminders: has("reminders") ? parseReminders(body.reminders) : (current?.reminders ?? { useDefault: true }),
    extendedProperties,
  };
  checkTimes(fields);
  return fields;
}

function recurrenceOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((line): line is string => typeof line === "string" && /^(RRULE|EXRULE|RDATE|EXDATE)[:;]/.test(line))) {
    return fail({ status: 400, reason: "invalid", message: "Invalid recurrence rule.", location: "recurrence", locationType: "parameter" });
  }
  return value.length > 0 ? value : undefined;
}

const bodyOf = (input: GoogleCalendarEventInput): Record<string, unknown> => {
  const body: Record<string, unknown> = { ...input };
  // A test's times replace the event's (as the user picks new ones in Google), whatever kind they were.
  for (const which of ["start", "end"] as const) {
    const time = input[which];
    if (!time) continue;
    body[which] =
      "date" in time
        ? { date: time.date, dateTime: null, timeZone: null }
        : { date: null, dateTime: time.dateTime instanceof Date ? time.dateTime.toISOString() : time.dateTime, timeZone: time.timeZone ?? null };
  }
  return body;
};

/** Starts the Calendar v3 stand-in on a free loopback port. */
export async function startGoogleCalendarServer(options: GoogleCalendarServerOptions = {}): Promise<LocalGoogleCalendar> {
  const horizonMs = (options.recurrenceHorizonDays ?? 730) * DAY_MS;
  const emailOf = options.emailOf ?? ((key: string) => (key.includes("@") ? key : `${key}@example.com`));
  const accounts = new Map<string, Account>();
  const issuedTokens = new Map<string, string>();
  const revokedTokens = new Set<string>();
  const syncTokens = new Map<string, { account: string; seq: number; singleEvents: boolean }>();
  const pages = new Map<string, PagedListing>();
  const failures: Array<{ operation: GoogleCalendarOperation; answer: GoogleErrorAnswer }> = [];
  const requests: GoogleCalendarRequest[] = [];

  const accountOf = (key: string): Account => {
    let account = accounts.get(key);
    if (!account) {
      account = { key, email: emailOf(key), events: new Map(), changeSeq: 0 };
      accounts.set(key, account);
    }
    return account;
  };
  const tick = (account: Account) => ++account.changeSeq;

  const htmlLink = (account: Account, id: string) =>
    `https://www.google.com/calendar/event?eid=${Buffer.from(`${id} ${account.email}`).toString("base64url")}`;
  const etag = (updated: Date, changeSeq: number) => `"${updated.getTime()}${String(changeSeq).padStart(4, "0")}"`;

  function resourceOf(
    account: Account,
    event: StoredEvent,
    fields: EventFields,
    instance?: { id: string; originalStart: StoredTime; exception?: InstanceException },
  ): GoogleCalendarEventResource {
    const id = instance?.id ?? event.id;
    const updated = instance?.exception?.updated ?? event.updated;
    const changeSeq = Math.max(event.changeSeq, instance?.exception?.changeSeq ?? 0);
    const recurring = instance ? { recurringEventId: event.id, originalStartTime: timeResource(instance.originalStart) } : {};
    if (fields.status === "cancelled") {
      // What Google gives for a deleted event: the id and the status only (and, for an instance, which one).
      return { kind: "calendar#event", etag: etag(updated, changeSeq), id, status: "cancelled", ...recurring };
    }
    const resource: GoogleCalendarEventResource = {
      kind: "calendar#event",
      etag: etag(updated, changeSeq),
      id,
      status: fields.status,
      htmlLink: htmlLink(account, id),
      created: event.created.toISOString(),
      updated: updated.toISOString(),
    };
    if (fields.summary !== undefined) resource.summary = fields.summary;
    if (fields.description !== undefined) resource.description = fields.description;
    if (fields.location !== undefined) resource.location = fields.location;
    if (fields.colorId !== undefined) resource.colorId = fields.colorId;
    Object.assign(resource, {
      creator: { email: account.email, self: true },
      organizer: { email: account.email, self: true },
      start: timeResource(fields.start),
      end: timeResource(fields.end),
      ...recurring,
      ...(!instance && event.recurrence ? { recurrence: [...event.recurrence] } : {}),
      iCalUID: `${event.id}@google.com`,
      sequence: instance?.exception?.sequence ?? event.sequence,
      reminders: fields.reminders.useDefault
        ? { useDefault: true }
        : { useDefault: false, ...(fields.reminders.overrides?.length ? { overrides: fields.reminders.overrides } : {}) },
    });
    const extended: Record<string, Record<string, string>> = {};
    if (fields.extendedProperties?.private && Object.keys(fields.extendedProperties.private).length > 0)
      extended.private = { ...fields.extendedProperties.private };
    if (fields.extendedProperties?.shared && Object.keys(fields.extendedProperties.shared).length > 0)
      extended.shared = { ...fields.extendedProperties.shared };
    if (Object.keys(extended).length > 0) resource.extendedProperties = extended;
    resource.eventType = "default";
    return resource;
  }

  /** The original starts of a recurring event's instances overlapping [from, to) (by their unchanged times). */
  function occurrences(event: StoredEvent, from: Date, to: Date): StoredTime[] {
    if (!event.recurrence) return [];
    const start = instantOf(event.start);
    const duration = instantOf(event.end).getTime() - start.getTime();
    let rules;
    try {
      // DTSTART in the text: rrulestr ignores the dtstart option when it builds a set (it would start now).
      rules = rrulestr([`DTSTART:${stampOf({ instant: start })}`, ...event.recurrence].join("\n"), { forceset: true });
    } catch {
      return fail({ status: 400, reason: "invalid", message: "Invalid recurrence rule.", location: "recurrence", locationType: "parameter" });
    }
    // rrule works on instants here: the calendar is in UTC, so local and UTC times are the same.
    return rules
      .between(new Date(from.getTime() - duration), to, true)
      .filter((occurrence) => occurrence.getTime() + duration > from.getTime() || duration === 0)
      .map((occurrence): StoredTime =>
        "date" in event.start ? { date: isoDate(occurrence) } : { instant: occurrence, timeZone: event.start.timeZone },
      );
  }

  /** Every instance of a recurring event overlapping [from, to), exceptions applied. */
  function instances(account: Account, event: StoredEvent, from: Date, to: Date): Row[] {
    const duration = instantOf(event.end).getTime() - instantOf(event.start).getTime();
    const originals = occurrences(event, from, to);
    // An instance moved into the range from outside it is there too.
    const found = new Set(originals.map(stampOf));
    for (const [suffix, exception] of event.exceptions) {
      const [start, end] = [instantOf(exception.fields.start), instantOf(exception.fields.end)];
      if (!found.has(suffix) && start.getTime() < to.getTime() && end.getTime() > from.getTime()) originals.push(exception.originalStart);
    }
    return originals.map((originalStart) => {
      const suffix = stampOf(originalStart);
      const exception = event.exceptions.get(suffix);
      const fields: EventFields = exception?.fields ?? {
        ...event,
        start: originalStart,
        end: shifted(originalStart, duration),
      };
      // A deleted series deletes every instance, whatever was changed in one.
      const effective = event.status === "cancelled" ? { ...fields, status: "cancelled" as const } : fields;
      return {
        resource: resourceOf(account, event, effective, { id: `${event.id}_${suffix}`, originalStart, exception }),
        start: instantOf(effective.start),
        end: instantOf(effective.end),
        changeSeq: Math.max(event.changeSeq, exception?.changeSeq ?? 0),
        updated: exception && exception.updated > event.updated ? exception.updated : event.updated,
        cancelled: effective.status === "cancelled",
      };
    });
  }

  const masterRow = (account: Account, event: StoredEvent): Row => ({
    resource: resourceOf(account, event, event),
    start: instantOf(event.start),
    end: instantOf(event.end),
    changeSeq: event.changeSeq,
    updated: event.updated,
    cancelled: event.status === "cancelled",
  });

  /** An event or one of its instances by id: what patch and delete act on. */
  function findTarget(
    account: Account,
    eventId: string,
  ): { event: StoredEvent; instance?: { suffix: string; originalStart: StoredTime } } | undefined {
    const event = account.events.get(eventId);
    if (event) return { event };
    const cut = eventId.lastIndexOf("_");
    if (cut < 0) return undefined;
    const master = account.events.get(eventId.slice(0, cut));
    const suffix = eventId.slice(cut + 1);
    if (!master?.recurrence) return undefined;
    const match = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z)?$/.exec(suffix);
    if (!match) return undefined;
    const [, year, month, day, hour, minute, second] = match;
    const originalStart: StoredTime =
      "date" in master.start
        ? { date: `${year}-${month}-${day}` }
        : { instant: new Date(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`), timeZone: master.start.timeZone };
    // An all-day series' instances are named by their date, a timed one's by their UTC start.
    if ("date" in master.start !== (hour === undefined) || ("instant" in originalStart && Number.isNaN(originalStart.instant.getTime())))
      return undefined;
    const at = instantOf(originalStart);
    const found = occurrences(master, new Date(at.getTime() - 1), new Date(at.getTime() + 1)).some(
      (time) => instantOf(time).getTime() === at.getTime(),
    );
    return found ? { event: master, instance: { suffix, originalStart } } : undefined;
  }

  function insert(account: Account, body: Record<string, unknown>): StoredEvent {
    const id = body.id === undefined ? newEventId() : body.id;
    if (typeof id !== "string" || !EVENT_ID.test(id)) return fail({ status: 400, reason: "invalid", message: "Invalid resource id value." });
    if (account.events.has(id)) return fail({ status: 409, reason: "duplicate", message: "The requested identifier already exists." });
    const fields = applyWrite(undefined, body);
    const recurrence = recurrenceOf(body.recurrence);
    const now = new Date();
    const event: StoredEvent = {
      ...fields,
      id,
      recurrence,
      created: now,
      updated: now,
      sequence: 0,
      changeSeq: tick(account),
      exceptions: new Map(),
    };
    occurrences(event, instantOf(event.start), new Date(instantOf(event.start).getTime() + 1)); // validates the rule
    account.events.set(id, event);
    return event;
  }

  function patch(account: Account, eventId: string, body: Record<string, unknown>): GoogleCalendarEventResource {
    const target = findTarget(account, eventId);
    if (!target) return fail({ status: 404, reason: "notFound", message: "Not Found" });
    const { event, instance } = target;
    const now = new Date();
    if (instance) {
      const exception = event.exceptions.get(instance.suffix);
      if (event.status === "cancelled" || exception?.fields.status === "cancelled")
        return fail({ status: 410, reason: "deleted", message: "Resource has been deleted" });
      const duration = instantOf(event.end).getTime() - instantOf(event.start).getTime();
      const before = exception?.fields ?? { ...event, start: instance.originalStart, end: shifted(instance.originalStart, duration) };
      const fields = applyWrite(before, body);
      const moved = stampOf(fields.start) !== stampOf(before.start) || stampOf(fields.end) !== stampOf(before.end);
      const sequence = (exception?.sequence ?? event.sequence) + (moved ? 1 : 0);
      event.exceptions.set(instance.suffix, { originalStart: instance.originalStart, fields, changeSeq: tick(account), updated: now, sequence });
      return resourceOf(account, event, fields, {
        id: eventId,
        originalStart: instance.originalStart,
        exception: event.exceptions.get(instance.suffix),
      });
    }
    if (event.status === "cancelled") return fail({ status: 410, reason: "deleted", message: "Resource has been deleted" });
    const fields = applyWrite(event, body);
    const moved = stampOf(fields.start) !== stampOf(event.start) || stampOf(fields.end) !== stampOf(event.end);
    const recurrenceChanged = Object.prototype.hasOwnProperty.call(body, "recurrence");
    const recurrence = recurrenceChanged ? recurrenceOf(body.recurrence) : event.recurrence;
    // Checked before anything changes: a refused patch leaves the event as it was.
    occurrences({ ...event, ...fields, recurrence }, instantOf(fields.start), new Date(instantOf(fields.start).getTime() + 1));
    Object.assign(event, fields, {
      recurrence,
      updated: now,
      changeSeq: tick(account),
      sequence: event.sequence + (moved || recurrenceChanged ? 1 : 0),
    });
    return resourceOf(account, event, event);
  }

  function remove(account: Account, eventId: string): void {
    const target = findTarget(account, eventId);
    if (!target) return fail({ status: 404, reason: "notFound", message: "Not Found" });
    const { event, instance } = target;
    if (instance) {
      const exception = event.exceptions.get(instance.suffix);
      if (event.status === "cancelled" || exception?.fields.status === "cancelled")
        return fail({ status: 410, reason: "deleted", message: "Resource has been deleted" });
      const duration = instantOf(event.end).getTime() - instantOf(event.start).getTime();
      const fields = exception?.fields ?? { ...event, start: instance.originalStart, end: shifted(instance.originalStart, duration) };
      event.exceptions.set(instance.suffix, {
        originalStart: instance.originalStart,
        fields: { ...fields, status: "cancelled" },
        changeSeq: tick(account),
        updated: new Date(),
        sequence: exception?.sequence ?? event.sequence,
      });
      return;
    }
    if (event.status === "cancelled") return fail({ status: 410, reason: "deleted", message: "Resource has been deleted" });
    Object.assign(event, { status: "cancelled", updated: new Date(), changeSeq: tick(account) });
  }

  /** Google's answer to events.list. */
  function list(account: Account, query: Record<string, string>): Record<string, unknown> {
    const flag = (name: string): boolean | undefined => {
      const value = query[name];
      if (value === undefined) return undefined;
      if (value !== "true" && value !== "false") return badParameter(`Invalid boolean value: '${value}'.`, name);
      return value === "true";
    };
    const singleEvents = flag("singleEvents") ?? false;
    const showDeleted = flag("showDeleted");
    let maxResults = MAX_RESULTS_DEFAULT;
    if (query.maxResults !== undefined) {
      maxResults = Number(query.maxResults);
      if (!Number.isInteger(maxResults) || maxResults < 1)
        return badParameter(`Invalid value '${query.maxResults}'. Values must be within the range: [1, ${MAX_RESULTS_CAP}]`, "maxResults");
      // Google never pages by more than 2500, whatever is asked.
      maxResults = Math.min(maxResults, MAX_RESULTS_CAP);
    }
    const orderBy = query.orderBy;
    if (orderBy !== undefined && orderBy !== "startTime" && orderBy !== "updated")
      return badParameter(`Invalid value for orderBy: ${orderBy}`, "orderBy");
    if (orderBy === "startTime" && !singleEvents) return badParameter("The requested ordering is not available for the particular query.", "orderBy");
    const syncToken = query.syncToken;
    if (syncToken !== undefined) {
      const refused = NOT_WITH_SYNC_TOKEN.find((name) => query[name] !== undefined);
      if (refused) return badParameter(`The ${refused} parameter cannot be used together with syncToken.`, refused);
      // Deleted events are always part of an incremental answer: Google refuses to leave them out.
      if (showDeleted === false) return badParameter("showDeleted cannot be false when syncToken is used.", "showDeleted");
    }
    const time = (name: "timeMin" | "timeMax"): Date | undefined => {
      const value = query[name];
      if (value === undefined) return undefined;
      if (!RFC3339.test(value) || Number.isNaN(new Date(value).getTime())) return fail({ status: 400, reason: "badRequest", message: "Bad Request" });
      return new Date(value);
    };
    const [timeMin, timeMax] = [time("timeMin"), time("timeMax")];
    if (timeMin && timeMax && timeMax.getTime() <= timeMin.getTime()) {
      return fail({
        status: 400,
        reason: "timeRangeEmpty",
        message: "The specified time range is empty.",
        location: "timeMax",
        locationType: "parameter",
      });
    }
    const pageToken = query.pageToken;
    // Google lets the page size change between pages, nothing else.
    const signature = JSON.stringify(
      Object.entries(query)
        .filter(([name]) => name !== "pageToken" && name !== "maxResults")
        .sort(([a], [b]) => a.localeCompare(b)),
    );

    let listing: PagedListing;
    let pageKey: string | undefined;
    if (pageToken !== undefined) {
      const paged = pages.get(pageToken);
      if (!paged || paged.account !== account.key || paged.signature !== signature) return badParameter("Invalid page token value.", "pageToken");
      listing = paged;
      pageKey = pageToken;
    } else {
      let rows: Row[];
      if (syncToken !== undefined) {
        const since = syncTokens.get(syncToken);
        if (!since || since.account !== account.key || since.singleEvents !== singleEvents) {
          return fail({
            status: 410,
            reason: "fullSyncRequired",
            message: "Sync token is no longer valid, a full sync is required.",
            location: "syncToken",
            locationType: "parameter",
          });
        }
        rows = changesSince(account, since.seq, singleEvents);
      } else {
        rows = window(account, timeMin, timeMax, singleEvents, showDeleted === true, orderBy);
      }
      listing = { account: account.key, signature, rows, offset: 0, syncSeq: account.changeSeq };
    }
    const items = listing.rows.slice(listing.offset, listing.offset + maxResults);
    const nextOffset = listing.offset + items.length;
    if (pageKey) pages.delete(pageKey);
    const answer: Record<string, unknown> = {
      kind: "calendar#events",
      etag: `"p${account.changeSeq}${listing.offset}"`,
      summary: account.email,
      description: "",
      updated: new Date(Math.max(0, ...[...account.events.values()].map((event) => event.updated.getTime()))).toISOString(),
      timeZone: "UTC",
      accessRole: "owner",
      defaultReminders: [{ method: "popup", minutes: 30 }],
      items: items.map((row) => row.resource),
    };
    if (nextOffset < listing.rows.length) {
      const next = opaque();
      pages.set(next, { ...listing, offset: nextOffset });
      answer.nextPageToken = next;
    } else {
      const next = opaque();
      syncTokens.set(next, { account: account.key, seq: listing.syncSeq, singleEvents });
      answer.nextSyncToken = next;
    }
    return answer;
  }

  /** A full listing: what overlaps [timeMin, timeMax) (end after timeMin, start before timeMax). */
  function window(
    account: Account,
    timeMin: Date | undefined,
    timeMax: Date | undefined,
    singleEvents: boolean,
    showDeleted: boolean,
    orderBy: string | undefined,
  ): Row[] {
    const from = timeMin ?? new Date(0);
    const to = timeMax ?? new Date(Date.now() + horizonMs);
    const overlaps = (row: Row) =>
      row.start.getTime() < to.getTime() &&
      (row.end.getTime() > from.getTime() || (row.end.getTime() === row.start.getTime() && row.start.getTime() >= from.getTime()));
    const rows: Row[] = [];
    for (const event of account.events.values()) {
      if (!event.recurrence) {
        rows.push(masterRow(account, event));
      } else if (singleEvents) {
        rows.push(...instances(account, event, from, to));
      } else {
        // Without singleEvents Google answers the series itself (when one of its instances is in the window: it is
        // placed there, at its first one) and, apart, its changed instances.
        const inWindow = instances(account, event, from, to).filter(overlaps);
        if (inWindow.length > 0) rows.push({ ...masterRow(account, event), start: inWindow[0].start, end: inWindow[0].end });
        rows.push(...inWindow.filter((row) => event.exceptions.has(row.resource.id.slice(event.id.length + 1))));
      }
    }
    const kept = rows.filter((row) => (showDeleted || !row.cancelled) && overlaps(row));
    return kept.sort((a, b) =>
      orderBy === "updated"
        ? a.updated.getTime() - b.updated.getTime() || a.resource.id.localeCompare(b.resource.id)
        : a.start.getTime() - b.start.getTime() || a.resource.id.localeCompare(b.resource.id),
    );
  }

  /** An incremental listing: everything changed after `seq`, deletions included, oldest change first. */
  function changesSince(account: Account, seq: number, singleEvents: boolean): Row[] {
    const rows: Row[] = [];
    for (const event of account.events.values()) {
      if (!event.recurrence) {
        if (event.changeSeq > seq) rows.push(masterRow(account, event));
        continue;
      }
      const latest = Math.max(event.changeSeq, ...[...event.exceptions.values()].map((exception) => exception.changeSeq));
      if (latest <= seq) continue;
      const all = instances(account, event, instantOf(event.start), new Date(Date.now() + horizonMs));
      if (singleEvents) {
        rows.push(...all.filter((row) => row.changeSeq > seq));
      } else {
        if (event.changeSeq > seq) rows.push(masterRow(account, event));
        rows.push(...all.filter((row) => row.changeSeq > seq && event.exceptions.has(row.resource.id.slice(event.id.length + 1))));
      }
    }
    return rows.sort((a, b) => a.changeSeq - b.changeSeq || a.start.getTime() - b.start.getTime() || a.resource.id.localeCompare(b.resource.id));
  }

  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ type: () => true }));
  const api = express.Router();

  const queryOf = (req: Request): Record<string, string> => {
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.query)) {
      // A repeated parameter: the last one counts (the client never repeats the ones read here).
      const last: unknown = Array.isArray(value) ? value[value.length - 1] : value;
      if (typeof last === "string") query[name] = last;
    }
    return query;
  };

  /** Records the request, answers an injected failure, authenticates, and finds the calendar. */
  function begin(req: Request, res: Response, operation: GoogleCalendarOperation): Account {
    const header = req.header("authorization") ?? "";
    const token = header.startsWith("Bearer ") ? header.slice(7) : undefined;
    let key: string | undefined;
    if (token && !revokedTokens.has(token)) key = issuedTokens.get(token) ?? options.authenticate?.(token);
    const record: GoogleCalendarRequest = { operation, method: req.method, path: req.path, query: queryOf(req), account: key, status: 0 };
    requests.push(record);
    res.on("finish", () => {
      record.status = res.statusCode;
    });
    const injected = failures.findIndex((failure) => failure.operation === operation);
    if (injected >= 0) {
      const [failure] = failures.splice(injected, 1);
      fail(failure.answer);
    }
    if (token === undefined) {
      fail({ status: 401, reason: "required", message: "Login Required.", location: "Authorization", locationType: "header" });
    }
    if (key === undefined) return fail(GOOGLE_ERRORS.invalidCredentials);
    const account = accountOf(key);
    const calendarId = String(req.params.calendarId);
    if (calendarId !== "primary" && calendarId.toLowerCase() !== account.email.toLowerCase())
      fail({ status: 404, reason: "notFound", message: "Not Found" });
    return account;
  }

  const bodyObject = (req: Request): Record<string, unknown> =>
    typeof req.body === "object" && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};

  api.get("/calendars/:calendarId/events", (req, res) => {
    const account = begin(req, res, "events.list");
    res.json(list(account, queryOf(req)));
  });
  api.post("/calendars/:calendarId/events", (req, res) => {
    const account = begin(req, res, "events.insert");
    const event = insert(account, bodyObject(req));
    res.json(resourceOf(account, event, event));
  });
  api.patch("/calendars/:calendarId/events/:eventId", (req, res) => {
    const account = begin(req, res, "events.patch");
    res.json(patch(account, req.params.eventId, bodyObject(req)));
  });
  api.delete("/calendars/:calendarId/events/:eventId", (req, res) => {
    const account = begin(req, res, "events.delete");
    remove(account, req.params.eventId);
    res.status(204).end();
  });
  api.use((req, res) => {
    requests.push({ operation: "unknown", method: req.method, path: req.path, query: queryOf(req), status: 404 });
    res.status(404).json(errorBody({ status: 404, reason: "notFound", message: "Not Found" }));
  });
  app.use("/calendar/v3", api);
  // Google's answers to failures; a body that is not JSON is Google's parse error.
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof GoogleApiError) {
      res.status(error.answer.status).json(errorBody(error.answer));
      return;
    }
    if (error instanceof SyntaxError) {
      res.status(400).json(errorBody({ status: 400, reason: "parseError", message: "Parse Error" }));
      return;
    }
    res.status(500).json(errorBody({ status: 500, reason: "backendError", message: `Backend Error: ${String(error)}` }));
  });

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const rootUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  /** The controls act as the user does in Google: the same rules, and a refusal throws with Google's message. */
  const control = <T>(act: () => T): T => {
    try {
      return act();
    } catch (error) {
      if (error instanceof GoogleApiError) {
        throw new Error(`Google would refuse this (${error.answer.status} ${error.answer.reason}): ${error.message}`, { cause: error });
      }
      throw error;
    }
  };
  const instanceTarget = (account: Account, instanceId: string) => {
    const target = findTarget(account, instanceId);
    if (!target?.instance) throw new Error(`${instanceId} is not an instance of a recurring event of ${account.key}`);
    return target;
  };

  return {
    rootUrl,
    requests,
    issueToken(accountKey) {
      accountOf(accountKey);
      const token = `ya29.${opaque()}`;
      issuedTokens.set(token, accountKey);
      return token;
    },
    revokeToken(accessToken) {
      revokedTokens.add(accessToken);
    },
    calendarIdOf: (accountKey) => accountOf(accountKey).email,
    addEvent(accountKey, event) {
      const account = accountOf(accountKey);
      return control(() => {
        const stored = insert(account, bodyOf(event));
        return resourceOf(account, stored, stored);
      });
    },
    updateEvent(accountKey, eventId, changes) {
      const account = accountOf(accountKey);
      if (!account.events.has(eventId)) throw new Error(`no event ${eventId} in ${accountKey}'s calendar`);
      return control(() => patch(account, eventId, bodyOf(changes)));
    },
    deleteEvent(accountKey, eventId) {
      const account = accountOf(accountKey);
      if (!account.events.has(eventId)) throw new Error(`no event ${eventId} in ${accountKey}'s calendar`);
      control(() => remove(account, eventId));
    },
    updateInstance(accountKey, instanceId, changes) {
      const account = accountOf(accountKey);
      instanceTarget(account, instanceId);
      return control(() => patch(account, instanceId, bodyOf(changes)));
    },
    cancelInstance(accountKey, instanceId) {
      const account = accountOf(accountKey);
      instanceTarget(account, instanceId);
      control(() => remove(account, instanceId));
    },
    events(accountKey, listOptions = {}) {
      const account = accountOf(accountKey);
      return [...account.events.values()]
        .filter((event) => listOptions.showDeleted === true || event.status !== "cancelled")
        .map((event) => resourceOf(account, event, event));
    },
    event(accountKey, eventId) {
      const account = accountOf(accountKey);
      const target = findTarget(account, eventId);
      if (!target) return undefined;
      if (!target.instance) return resourceOf(account, target.event, target.event);
      const at = instantOf(target.instance.originalStart);
      return instances(account, target.event, at, new Date(at.getTime() + 1)).find((row) => row.resource.id === eventId)?.resource;
    },
    expireSyncTokens(accountKey) {
      for (const [token, since] of syncTokens) if (accountKey === undefined || since.account === accountKey) syncTokens.delete(token);
    },
    failNext(operation, answer, times = 1) {
      for (let i = 0; i < times; i++) failures.push({ operation, answer });
    },
    clearFailures() {
      failures.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
