import { calendar as api, indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { GrpcCourseDirectory } from "@study/grpc";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaCalendarEventRepository } from "./adapters/db/prisma-calendar-event-repository";
import { PrismaFeedRepository } from "./adapters/db/prisma-feed-repository";
import { PrismaReminderRepository } from "./adapters/db/prisma-reminder-repository";
import { startCourseEventsConsumer } from "./adapters/events/course-events-consumer";
import { calendarGrpcService } from "./adapters/grpc/calendar-grpc-service";
import { searchableSourceGrpcService } from "./adapters/grpc/searchable-source";
import { IcalFeedRenderer } from "./adapters/ical/ical-feed-renderer";
import { scheduleReminders } from "./adapters/scheduler/reminder-scheduler";
import { CreateEvent } from "./application/create-event";
import { DeleteEvent } from "./application/delete-event";
import { DetachCourse } from "./application/detach-course";
import { GetFeedToken, RenderFeed, RotateFeedToken } from "./application/feed";
import { GetEvent } from "./application/get-event";
import { ListEvents } from "./application/list-events";
import { ListSearchables } from "./application/list-searchables";
import { SendDueReminders } from "./application/send-due-reminders";
import { UpdateEvent } from "./application/update-event";
import { calendarConfigSchema, type CalendarConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { calendarMigrations } from "./migrations";

/** The composition of the calendar service: adapters → use cases → gRPC, the course-deletion consumer and the reminder scheduler. */
export const calendarService: ServiceDefinition<PrismaClient, CalendarConfig> = {
  ...calendarMigrations,
  configSchema: calendarConfigSchema,
  createDatabase: (config) => new PrismaClient(prismaOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE)),
  async compose({ config, db, amqp, logger, lifecycle }) {
    const repository = new PrismaCalendarEventRepository(db);
    await startCourseEventsConsumer({ connection: amqp, db, exchange: config.EVENT_EXCHANGE, logger, detachCourse: new DetachCourse(repository) });

    const courses = new GrpcCourseDirectory(config.COURSES_GRPC_ADDRESS);
    lifecycle.onStop("courses client", async () => courses.close());
    const reminders = scheduleReminders(config.CALENDAR_REMINDER_POLL_MS, new SendDueReminders(new PrismaReminderRepository(db)), logger);
    lifecycle.onStop("reminder scheduler", () => reminders.stop());
    const getEvent = new GetEvent(repository);
    const feeds = new PrismaFeedRepository(db);
    const implementation = calendarGrpcService(
      {
        createEvent: new CreateEvent(repository, courses),
        getEvent,
        listEvents: new ListEvents(repository),
        updateEvent: new UpdateEvent(repository, getEvent, courses),
        deleteEvent: new DeleteEvent(repository, getEvent),
        getFeedToken: new GetFeedToken(feeds),
        rotateFeedToken: new RotateFeedToken(feeds),
        renderFeed: new RenderFeed(feeds, feeds, new IcalFeedRenderer()),
      },
      logger,
    );
    return [
      { definition: api.CalendarServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(repository), logger) },
    ];
  },
};
