import { calendar as api } from "@study/contracts";
import { bindUnaryHandlers, pageInfo } from "@study/grpc";
import type { Logger } from "@study/platform";
import { AppError, isAppError } from "@study/platform/errors";
import type { CreateEvent } from "../../application/create-event";
import type { CreateEventsFromSource } from "../../application/create-events-from-source";
import type { DeleteEvent } from "../../application/delete-event";
import type { GetFeedToken, RenderFeed, RotateFeedToken } from "../../application/feed";
import type { GetEvent } from "../../application/get-event";
import type { SyncGoogleCalendar } from "../../application/google/sync-google-calendar";
import type { ListEvents } from "../../application/list-events";
import type { UpdateEvent } from "../../application/update-event";
import { EVENT_PRIORITIES, EVENT_TYPES, type CalendarEvent, type EventPriority, type EventType } from "../../domain/calendar-event";

export interface CalendarUseCases {
  createEvent: CreateEvent;
  createEventsFromSource: CreateEventsFromSource;
  getEvent: GetEvent;
  listEvents: ListEvents;
  updateEvent: UpdateEvent;
  deleteEvent: DeleteEvent;
  getFeedToken: GetFeedToken;
  rotateFeedToken: RotateFeedToken;
  renderFeed: RenderFeed;
  syncGoogleCalendar: SyncGoogleCalendar;
}

/** EVENT_TYPE_UNSPECIFIED: not given (undefined); an unknown number: invalid input. */
export function eventTypeFromProto(value: api.EventType): EventType | undefined {
  if (value === api.EventType.EVENT_TYPE_UNSPECIFIED) return undefined;
  const type = EVENT_TYPES.find((name) => api.EventType[`EVENT_TYPE_${name}`] === value);
  if (!type) throw AppError.validation("Invalid event type", [{ field: "eventType", message: `must be one of ${EVENT_TYPES.join(", ")}` }]);
  return type;
}

/** The type of the source item at `index`, as eventTypeFromProto reads it: an unknown number is refused under the item's name. */
function sourceItemEventType(value: api.EventType, index: number): EventType | null {
  try {
    return eventTypeFromProto(value) ?? null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw AppError.validation(
      error.message,
      error.details.map(({ field, message }) => ({ field: `items[${index}].${field}`, message })),
    );
  }
}

/** EVENT_PRIORITY_UNSPECIFIED: not given (undefined); an unknown number: invalid input. */
export function priorityFromProto(value: api.EventPriority): EventPriority | undefined {
  if (value === api.EventPriority.EVENT_PRIORITY_UNSPECIFIED) return undefined;
  const priority = EVENT_PRIORITIES.find((name) => api.EventPriority[`EVENT_PRIORITY_${name}`] === value);
  if (!priority) throw AppError.validation("Invalid priority", [{ field: "priority", message: `must be one of ${EVENT_PRIORITIES.join(", ")}` }]);
  return priority;
}

/** clear_fields as sent (proto's snake_case or the domain's camelCase) in the domain's names. */
const CLEAR_FIELD_NAMES: Record<string, string> = { end_date: "endDate", course_id: "courseId" };
export const clearFieldsFromProto = (fields: string[]): string[] => fields.map((field) => CLEAR_FIELD_NAMES[field] ?? field);

export function toProtoEvent(event: CalendarEvent): api.CalendarEvent {
  return {
    id: event.id,
    userId: event.userId,
    title: event.title,
    description: event.description ?? undefined,
    startDate: event.startDate,
    endDate: event.endDate ?? undefined,
    eventType: api.EventType[`EVENT_TYPE_${event.eventType}`],
    location: event.location ?? undefined,
    priority: api.EventPriority[`EVENT_PRIORITY_${event.priority}`],
    color: event.color,
    courseId: event.courseId ?? undefined,
    googleEventId: event.googleEventId ?? undefined,
    googleCalendarId: event.googleCalendarId ?? undefined,
    reminderMinutes: event.reminderMinutes,
    allDayDate: event.allDayDate ?? undefined,
    createdAt: event.createdAt,
    updatedAt: event.updatedAt,
  };
}

/**
 * The spec's calendar codes for an unexpected failure (a database error, a bug): the operation that failed
 * (CALENDAR_EVENT_CREATE_ERROR, …_UPDATE_ERROR, …_DELETE_ERROR) or CALENDAR_SERVICE_ERROR, instead of the generic
 * INTERNAL_ERROR. Refusals (AppErrors) keep their own code; the cause is logged, never sent.
 */
function failingAs<Req, Res>(code: string, message: string, handler: (request: Req) => Promise<Res>): (request: Req) => Promise<Res> {
  return (request) =>
    handler(request).catch((error: unknown) => {
      if (isAppError(error) && error.kind !== "internal") throw error;
      throw new AppError("internal", code, message, { cause: error });
    });
}

const SERVICE_ERROR = "CALENDAR_SERVICE_ERROR";
const SERVICE_FAILED = "The calendar service failed; please try again";

export function calendarGrpcService(useCases: CalendarUseCases, logger: Logger): api.CalendarServiceServer {
  return bindUnaryHandlers(logger, api.CalendarServiceService, {
    createEvent: failingAs("CALENDAR_EVENT_CREATE_ERROR", "The calendar event could not be created", async (request: api.CreateEventRequest) => {
      const event = await useCases.createEvent.execute(request.userId, {
        title: request.title,
        description: request.description ?? null,
        startDate: request.startDate ?? null,
        endDate: request.endDate ?? null,
        eventType: eventTypeFromProto(request.eventType) ?? null,
        location: request.location ?? null,
        priority: priorityFromProto(request.priority) ?? null,
        color: request.color,
        courseId: request.courseId ?? null,
        reminderMinutes: request.reminderMinutes ?? null,
      });
      return { event: toProtoEvent(event) };
    }),
    createEventsFromSource: failingAs(
      "CALENDAR_EVENT_CREATE_ERROR",
      "The calendar events could not be created",
      async (request: api.CreateEventsFromSourceRequest) =>
        useCases.createEventsFromSource.execute(
          request.userId,
          request.courseId ?? null,
          request.items.map((item, index) => ({
            sourceKey: item.sourceKey,
            title: item.title,
            description: item.description ?? null,
            startDate: item.startDate ?? null,
            endDate: item.endDate ?? null,
            eventType: sourceItemEventType(item.eventType, index),
            location: item.location ?? null,
            allDayDate: item.allDayDate ?? null,
          })),
        ),
    ),
    getEvent: failingAs(SERVICE_ERROR, SERVICE_FAILED, async (request: api.GetEventRequest) => ({
      event: toProtoEvent(await useCases.getEvent.execute(request.userId, request.eventId)),
    })),
    listEvents: failingAs(SERVICE_ERROR, SERVICE_FAILED, async (request: api.ListEventsRequest) => {
      const page = await useCases.listEvents.execute(request.userId, {
        limit: request.page?.limit,
        offset: request.page?.offset,
        startsFrom: request.startsFrom,
        endsBefore: request.endsBefore,
        eventType: eventTypeFromProto(request.eventType),
        courseId: request.courseId,
      });
      return {
        events: page.events.map(toProtoEvent),
        page: pageInfo({ limit: page.limit, offset: page.offset, total: page.total, count: page.events.length }),
      };
    }),
    updateEvent: failingAs("CALENDAR_EVENT_UPDATE_ERROR", "The calendar event could not be updated", async (request: api.UpdateEventRequest) => {
      const { title, description, startDate, endDate, location, color, courseId, reminderMinutes } = request;
      const event = await useCases.updateEvent.execute(request.userId, request.eventId, {
        set: {
          title,
          description,
          startDate,
          endDate,
          eventType: eventTypeFromProto(request.eventType),
          location,
          priority: priorityFromProto(request.priority),
          color,
          courseId,
          reminderMinutes,
        },
        clear: clearFieldsFromProto(request.clearFields),
      });
      return { event: toProtoEvent(event) };
    }),
    deleteEvent: failingAs("CALENDAR_EVENT_DELETE_ERROR", "The calendar event could not be deleted", async (request: api.DeleteEventRequest) => {
      await useCases.deleteEvent.execute(request.userId, request.eventId);
      return {};
    }),
    getFeedToken: failingAs(SERVICE_ERROR, SERVICE_FAILED, async (request: api.GetFeedTokenRequest) => ({
      token: await useCases.getFeedToken.execute(request.userId),
    })),
    rotateFeedToken: failingAs(SERVICE_ERROR, SERVICE_FAILED, async (request: api.RotateFeedTokenRequest) => ({
      token: await useCases.rotateFeedToken.execute(request.userId),
    })),
    renderFeed: failingAs(SERVICE_ERROR, SERVICE_FAILED, async (request: api.RenderFeedRequest) => ({
      ics: await useCases.renderFeed.execute(request.token),
    })),
    syncGoogleCalendar: async (request) => useCases.syncGoogleCalendar.execute(request.userId),
  });
}
