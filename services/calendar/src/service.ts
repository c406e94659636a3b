import { calendar as api, indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { GrpcCourseDirectory, searchableSourceGrpcService } from "@study/grpc";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaCalendarEventRepository } from "./adapters/db/prisma-calendar-event-repository";
import { PrismaFeedRepository } from "./adapters/db/prisma-feed-repository";
import { PrismaReminderRepository } from "./adapters/db/prisma-reminder-repository";
import { PrismaGoogleSyncRepository } from "./adapters/db/prisma-google-sync-repository";
import { startCourseEventsConsumer } from "./adapters/events/course-events-consumer";
import { startGooglePushConsumer } from "./adapters/events/google-push-consumer";
import { GoogleCalendarClient } from "./adapters/google/google-calendar-client";
import { calendarGrpcService } from "./adapters/grpc/calendar-grpc-service";
import { IcalFeedRenderer } from "./adapters/ical/ical-feed-renderer";
import { GrpcProviderTokens } from "./adapters/identity/grpc-provider-tokens";
import { scheduleReminders } from "./adapters/scheduler/reminder-scheduler";
import { CreateEvent } from "./application/create-event";
import { CreateEventsFromSource } from "./application/create-events-from-source";
import { DeleteEvent } from "./application/delete-event";
import { DetachCourse } from "./application/detach-course";
import { GetFeedToken, RenderFeed, RotateFeedToken } from "./application/feed";
import { GetEvent } from "./application/get-event";
import { PushToGoogle } from "./application/google/push-to-google";
import { SyncGoogleCalendar } from "./application/google/sync-google-calendar";
import { ListEvents } from "./application/list-events";
import { ListSearchables } from "./application/list-searchables";
import { SendDueReminders } from "./application/send-due-reminders";
import { UpdateEvent } from "./application/update-event";
import { calendarConfigSchema, type CalendarConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { calendarMigrations } from "./migrations";

/**
 * The composition of the calendar service: adapters → use cases → gRPC, the course-deletion consumer, the Google
 * push consumer and the reminder scheduler.
 */
export const calendarService: ServiceDefinition<PrismaClient, CalendarConfig> = {
  ...calendarMigrations,
  configSchema: calendarConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger, lifecycle }) {
    const repository = new PrismaCalendarEventRepository(db);
    await startCourseEventsConsumer({ ...consumerLink, detachCourse: new DetachCourse(repository) });

    const courses = new GrpcCourseDirectory(config.COURSES_GRPC_ADDRESS);
    lifecycle.onStop("courses client", async () => courses.close());
    const reminders = scheduleReminders(config.CALENDAR_REMINDER_POLL_MS, new SendDueReminders(new PrismaReminderRepository(db)), logger);
    lifecycle.onStop("reminder scheduler", () => reminders.stop());
    const getEvent = new GetEvent(repository);
    const feeds = new PrismaFeedRepository(db);

    const providerTokens = new GrpcProviderTokens(config.IDENTITY_GRPC_ADDRESS);
    lifecycle.onStop("identity client", async () => providerTokens.close());
    const google = new GoogleCalendarClient({ rootUrl: config.GOOGLE_CALENDAR_API_URL, timeoutMs: config.GOOGLE_CALENDAR_TIMEOUT_MS });
    const googleSync = new PrismaGoogleSyncRepository(db);
    await startGooglePushConsumer({
      ...consumerLink,
      push: new PushToGoogle(providerTokens, google, repository, googleSync, logger),
    });
    const syncWindow = { pastDays: config.GOOGLE_SYNC_PAST_DAYS, futureDays: config.GOOGLE_SYNC_FUTURE_DAYS };
    const implementation = calendarGrpcService(
      {
        createEvent: new CreateEvent(repository, courses),
        createEventsFromSource: new CreateEventsFromSource(repository, courses),
        getEvent,
        listEvents: new ListEvents(repository),
        updateEvent: new UpdateEvent(repository, getEvent, courses),
        deleteEvent: new DeleteEvent(repository, getEvent),
        getFeedToken: new GetFeedToken(feeds),
        rotateFeedToken: new RotateFeedToken(feeds),
        renderFeed: new RenderFeed(feeds, feeds, new IcalFeedRenderer()),
        syncGoogleCalendar: new SyncGoogleCalendar(providerTokens, google, googleSync, syncWindow),
      },
      logger,
    );
    return [
      { definition: api.CalendarServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(repository), logger) },
    ];
  },
};
