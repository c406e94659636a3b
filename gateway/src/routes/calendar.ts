import { calendar as api, type common } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { credentialRateLimit } from "../http/rate-limit";
import { idParams } from "../http/params";
import { sendData, sendMessage } from "../http/envelope";
import { intParam, MAX_INT32 } from "../http/query";
import { coursesById, iso, isoOrNull, paginationJson, paginationSchema, restEnum } from "./shared/mappers";

/*
 * The gateway checks only the shape of the input (types, ISO instants, enum names, paging); the rules of an
 * event (lengths, colour, end not before start, reminder range) live in the calendar service, whose
 * VALIDATION_ERROR answers carry the same envelope.
 */

const eventTypes = restEnum(api.EventType, "EVENT_TYPE");
const priorities = restEnum(api.EventPriority, "EVENT_PRIORITY");

const instant = z.iso.datetime({ offset: true });
const eventType = z.enum(eventTypes.names);
const priority = z.enum(priorities.names);
/** Bounded by the wire type (int32) only; the service owns the 0-40320 rule. */
const reminderMinutes = z
  .number()
  .int()
  .min(-MAX_INT32 - 1)
  .max(MAX_INT32)
  .describe("Minutes before the start at which a reminder is sent (0-40320, default 30; 0: none)");

/** Optional fields: a value sets the field, null clears it (PATCH; on create the same as absent). */
const nullableFields = {
  description: z.string().nullable().optional().describe("At most 1000 characters"),
  endDate: instant.nullable().optional().describe("Not before startDate"),
  location: z.string().nullable().optional().describe("At most 255 characters"),
  courseId: z.string().nullable().optional().describe("One of the caller's courses (another user's: 404 NOT_FOUND)"),
};
/** The REST names of the nullable fields and the names UpdateEvent's clear_fields takes for them. */
const CLEARABLE = [
  ["description", "description"],
  ["endDate", "end_date"],
  ["location", "location"],
  ["courseId", "course_id"],
] as const;

const title = z.string().describe("1-255 characters");
const color = z.string().describe("A hex code (#RGB or #RRGGBB) or a CSS colour name");
const createBody = z.strictObject({
  title,
  startDate: instant,
  eventType,
  color,
  priority: priority.optional().describe("Default MEDIUM"),
  reminderMinutes: reminderMinutes.optional(),
  ...nullableFields,
});
const updateBody = z
  .strictObject({
    title: title.optional(),
    startDate: instant.optional(),
    eventType: eventType.optional(),
    color: color.optional(),
    priority: priority.optional(),
    reminderMinutes: reminderMinutes.optional(),
    ...nullableFields,
  })
  .refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });

const listQuery = z.object({
  startDate: instant.optional().describe("Events starting at or after this instant"),
  endDate: instant.optional().describe("Events ending before this instant (an event without an end ends at its start)"),
  eventType: eventType.optional(),
  courseId: z.string().min(1).max(100).optional(),
  limit: intParam(1, 100, 50),
  offset: intParam(0, MAX_INT32, 0),
});

const nullableString = z.string().nullable();
const eventCourseSchema = z.object({ id: z.string(), name: z.string(), code: nullableString }).meta({ id: "CalendarEventCourse" });
export const calendarEventSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: nullableString,
    startDate: z.iso.datetime(),
    endDate: z.iso.datetime().nullable(),
    eventType: z.enum(eventTypes.names),
    location: nullableString,
    priority: z.enum(priorities.names),
    color: z.string(),
    courseId: nullableString,
    googleEventId: nullableString,
    googleCalendarId: nullableString,
    reminderMinutes: z.number().int(),
    allDayDate: z.iso.date().nullable().describe("YYYY-MM-DD of an all-day event (its startDate is that day's midnight UTC)"),
    userId: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    course: eventCourseSchema.nullable(),
    user: z.object({ id: z.string(), name: z.string() }),
  })
  .meta({ id: "CalendarEvent" });

type Course = common.CourseSummary;
interface User {
  id: string;
  name: string;
}

/** The REST shape of an event: every field present (null when unset), with its course and its user. */
export function calendarEventJson(event: api.CalendarEvent, course: Course | undefined, user: User) {
  return {
    id: event.id,
    title: event.title,
    description: event.description ?? null,
    startDate: iso(event.startDate, "startDate of a calendar event"),
    endDate: isoOrNull(event.endDate),
    eventType: eventTypes.toRest(event.eventType),
    location: event.location ?? null,
    priority: priorities.toRest(event.priority),
    color: event.color,
    courseId: event.courseId ?? null,
    googleEventId: event.googleEventId ?? null,
    googleCalendarId: event.googleCalendarId ?? null,
    reminderMinutes: event.reminderMinutes,
    allDayDate: event.allDayDate ?? null,
    userId: event.userId,
    createdAt: iso(event.createdAt, "createdAt of a calendar event"),
    updatedAt: iso(event.updatedAt, "updatedAt of a calendar event"),
    course: course ? { id: course.id, name: course.name, code: course.code ?? null } : null,
    user: { id: user.id, name: user.name },
  };
}

const toDate = (value: string | null | undefined) => (value ? new Date(value) : undefined);
const optional = <T>(value: T | null | undefined) => (value === null ? undefined : value);

const feedSchema = z
  .object({
    url: z.url().describe("The subscribe URL: public, the token is its only credential"),
    token: z.string().describe("The secret feed token (32 random bytes, base64url)"),
  })
  .meta({ id: "CalendarFeed" });
const feedTokenParams = z.object({ token: z.string().min(1).max(128) });
/** Calendar apps poll a feed every few minutes to hours; an answer may be reused for 5 minutes. */
const FEED_CACHE_CONTROL = "private, max-age=300";

const googleSyncSchema = z
  .object({
    imported: z.number().int().describe("Events created here from Google"),
    updated: z.number().int().describe("Events that existed here and took Google's changes"),
    deleted: z.number().int().describe("Events deleted here because they were cancelled or deleted in Google"),
    fullSync: z.boolean().describe("A full sync (the first one, or Google expired its sync token) rather than the changes since the last"),
  })
  .meta({ id: "GoogleCalendarSync" });

/** A first sync reads the user's whole Google Calendar window, page by page: longer than the usual call. */
const GOOGLE_SYNC_DEADLINE_MS = 60_000;

const notFound = { description: "No such event of the caller (CALENDAR_EVENT_NOT_FOUND)", schema: errorEnvelope };
const courseNotFound = { description: "No such event of the caller (CALENDAR_EVENT_NOT_FOUND) or course (NOT_FOUND)", schema: errorEnvelope };
const tag = "Calendar";

export interface CalendarRouteOptions {
  /** The gateway's public URL, the base of the feed URL. */
  baseUrl: string;
  /** Feed fetches per minute per client address (as the other public, credential-taking endpoints are limited). */
  feedRateLimitPerMinute: number;
}

export function calendarRoutes(clients: ServiceClients, options: CalendarRouteOptions): RouteSpec[] {
  const feedJson = (token: string) => ({ url: `${options.baseUrl.replace(/\/+$/, "")}/api/calendar/feed/${token}.ics`, token });
  const feedLimit = credentialRateLimit("calendar-feed", options.feedRateLimitPerMinute);

  /** The events in REST shape, their courses fetched in one batch; the user is the caller. */
  async function eventsJson(user: User, events: api.CalendarEvent[]) {
    const courses = await coursesById(
      clients,
      user.id,
      events.flatMap((event) => (event.courseId ? [event.courseId] : [])),
    );
    return events.map((event) => calendarEventJson(event, event.courseId ? courses.get(event.courseId) : undefined, user));
  }
  const oneJson = async (user: User, event: api.CalendarEvent | undefined, what: string) =>
    (await eventsJson(user, [required(event, `event in ${what} reply`)]))[0];

  return [
    route({
      method: "post",
      path: "/api/calendar/events",
      tag,
      summary: "Create a calendar event",
      auth: true,
      body: createBody,
      responses: {
        201: { description: "The new event", schema: dataEnvelope(calendarEventSchema) },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, user, body, res }) {
        const { event } = await clients.calendar.createEvent({
          userId,
          title: body.title,
          description: optional(body.description),
          startDate: new Date(body.startDate),
          endDate: toDate(body.endDate),
          eventType: eventTypes.toProto(body.eventType),
          location: optional(body.location),
          priority: priorities.toProto(body.priority),
          color: body.color,
          courseId: optional(body.courseId),
          reminderMinutes: body.reminderMinutes,
        });
        sendData(res, 201, await oneJson(user, event, "CreateEvent"), "Calendar event created");
      },
    }),
    route({
      method: "get",
      path: "/api/calendar/events",
      tag,
      summary: "List the caller's events, ascending by start, each with its course and user",
      auth: true,
      query: listQuery,
      responses: {
        200: {
          description: "A page of events",
          schema: dataEnvelope(z.object({ events: z.array(calendarEventSchema), pagination: paginationSchema })),
        },
      },
      async handler({ userId, user, query, res }) {
        const { events, page } = await clients.calendar.listEvents({
          userId,
          page: { limit: query.limit, offset: query.offset },
          startsFrom: toDate(query.startDate),
          endsBefore: toDate(query.endDate),
          eventType: eventTypes.toProto(query.eventType),
          courseId: query.courseId,
        });
        sendData(
          res,
          200,
          { events: await eventsJson(user, events), pagination: paginationJson(page, "page in ListEvents reply") },
          "Calendar events retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/calendar/events/:id",
      tag,
      summary: "Get one of the caller's events with its course and user",
      auth: true,
      params: idParams,
      responses: { 200: { description: "The event", schema: dataEnvelope(calendarEventSchema) }, 404: notFound },
      async handler({ userId, user, params, res }) {
        const { event } = await clients.calendar.getEvent({ userId, eventId: params.id });
        sendData(res, 200, await oneJson(user, event, "GetEvent"), "Calendar event retrieved");
      },
    }),
    route({
      method: "patch",
      path: "/api/calendar/events/:id",
      tag,
      summary: "Change some fields of an event (null clears description, endDate, location or courseId)",
      auth: true,
      params: idParams,
      body: updateBody,
      responses: { 200: { description: "The updated event", schema: dataEnvelope(calendarEventSchema) }, 404: courseNotFound },
      async handler({ userId, user, params, body, res }) {
        const { event } = await clients.calendar.updateEvent({
          userId,
          eventId: params.id,
          title: body.title,
          description: optional(body.description),
          startDate: toDate(body.startDate),
          endDate: toDate(body.endDate),
          eventType: eventTypes.toProto(body.eventType),
          location: optional(body.location),
          priority: priorities.toProto(body.priority),
          color: body.color,
          courseId: optional(body.courseId),
          reminderMinutes: body.reminderMinutes,
          clearFields: CLEARABLE.filter(([field]) => body[field] === null).map(([, wire]) => wire),
        });
        sendData(res, 200, await oneJson(user, event, "UpdateEvent"), "Calendar event updated");
      },
    }),
    route({
      method: "delete",
      path: "/api/calendar/events/:id",
      tag,
      summary: "Delete one of the caller's events (and, shortly after, its copy in the caller's Google Calendar if it has one)",
      auth: true,
      params: idParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: notFound },
      async handler({ userId, params, res }) {
        await clients.calendar.deleteEvent({ userId, eventId: params.id });
        sendMessage(res, "Calendar event deleted");
      },
    }),
    route({
      method: "post",
      path: "/api/calendar/sync/google",
      tag,
      summary:
        "Import the caller's Google Calendar: the first time every event from 30 days ago to 180 days ahead (recurring events as their " +
        "instances), then only what changed in Google since; events imported before are updated, never duplicated, and those " +
        "cancelled in Google are deleted. Local changes go to Google on their own (shortly after each change).",
      auth: true,
      responses: {
        200: { description: "How many events were imported and updated", schema: dataEnvelope(googleSyncSchema) },
        400: {
          description:
            "No Google account linked (GOOGLE_CALENDAR_NOT_LINKED, action LINK_GOOGLE_ACCOUNT), or Google refused the credentials " +
            "(GOOGLE_CALENDAR_AUTH_ERROR, action RELINK_GOOGLE_ACCOUNT)",
          schema: errorEnvelope,
        },
        403: {
          description: "Calendar access not granted (GOOGLE_CALENDAR_PERMISSION_ERROR, action CHECK_GOOGLE_PERMISSIONS)",
          schema: errorEnvelope,
        },
        429: { description: "Google's rate limit (GOOGLE_CALENDAR_RATE_LIMIT, action RETRY_LATER)", schema: errorEnvelope },
        502: { description: "Google failed otherwise (GOOGLE_CALENDAR_SYNC_ERROR); what was imported so far stays", schema: errorEnvelope },
      },
      async handler({ userId, res }) {
        const result = await clients.calendar.syncGoogleCalendar({ userId }, { deadlineMs: GOOGLE_SYNC_DEADLINE_MS });
        sendData(
          res,
          200,
          { imported: result.imported, updated: result.updated, deleted: result.deleted, fullSync: result.fullSync },
          "Google Calendar synced",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/calendar/feed",
      tag,
      summary: "The caller's subscribable iCalendar feed URL (its secret token is made on the first call)",
      auth: true,
      responses: { 200: { description: "The feed URL and its token", schema: dataEnvelope(feedSchema) } },
      async handler({ userId, res }) {
        const { token } = await clients.calendar.getFeedToken({ userId });
        sendData(res, 200, feedJson(token), "Calendar feed retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/calendar/feed/rotate",
      tag,
      summary: "Replace the caller's feed token; the previous feed URL answers 404 from now on",
      auth: true,
      responses: { 200: { description: "The new feed URL and its token", schema: dataEnvelope(feedSchema) } },
      async handler({ userId, res }) {
        const { token } = await clients.calendar.rotateFeedToken({ userId });
        sendData(res, 200, feedJson(token), "Calendar feed token rotated");
      },
    }),
    route({
      method: "get",
      path: "/api/calendar/feed/:token.ics",
      tag,
      summary: "The iCalendar feed a token names (public: the token is the credential)",
      description:
        "Events from 90 days ago to a year ahead, instants in UTC, all-day events as dates. For calendar apps to subscribe to; no session needed.",
      auth: false,
      before: [feedLimit],
      params: feedTokenParams,
      responses: {
        200: { description: "The feed (RFC 5545)", schema: z.string(), contentType: "text/calendar" },
        404: { description: "Unknown or rotated token (NOT_FOUND)", schema: errorEnvelope },
        429: { description: "Too many requests (RATE_LIMITED)", schema: errorEnvelope },
      },
      async handler({ params, res }) {
        const { ics } = await clients.calendar.renderFeed({ token: params.token });
        res.status(200).set("Cache-Control", FEED_CACHE_CONTROL).type("text/calendar; charset=utf-8").send(ics);
      },
    }),
  ];
}
