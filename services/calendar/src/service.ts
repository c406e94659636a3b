import { calendar as api, indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { GrpcCourseDirectory } from "@study/grpc";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaCalendarEventRepository } from "./adapters/db/prisma-calendar-event-repository";
import { startCourseEventsConsumer } from "./adapters/events/course-events-consumer";
import { calendarGrpcService } from "./adapters/grpc/calendar-grpc-service";
import { searchableSourceGrpcService } from "./adapters/grpc/searchable-source";
import { CreateEvent } from "./application/create-event";
import { DeleteEvent } from "./application/delete-event";
import { DetachCourse } from "./application/detach-course";
import { GetEvent } from "./application/get-event";
import { ListEvents } from "./application/list-events";
import { ListSearchables } from "./application/list-searchables";
import { UpdateEvent } from "./application/update-event";
import { calendarConfigSchema, type CalendarConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { calendarMigrations } from "./migrations";

/** The composition of the calendar service: adapters → use cases → gRPC, and the course-deletion consumer. */
export const calendarService: ServiceDefinition<PrismaClient, CalendarConfig> = {
  ...calendarMigrations,
  configSchema: calendarConfigSchema,
  createDatabase: (config) => new PrismaClient(prismaOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE)),
  async compose({ config, db, amqp, logger, lifecycle }) {
    const repository = new PrismaCalendarEventRepository(db);
    await startCourseEventsConsumer({ connection: amqp, db, exchange: config.EVENT_EXCHANGE, logger, detachCourse: new DetachCourse(repository) });

    const courses = new GrpcCourseDirectory(config.COURSES_GRPC_ADDRESS);
    lifecycle.onStop("courses client", async () => courses.close());
    const getEvent = new GetEvent(repository);
    const implementation = calendarGrpcService(
      {
        createEvent: new CreateEvent(repository, courses),
        getEvent,
        listEvents: new ListEvents(repository),
        updateEvent: new UpdateEvent(repository, getEvent, courses),
        deleteEvent: new DeleteEvent(repository, getEvent),
      },
      logger,
    );
    return [
      { definition: api.CalendarServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(repository), logger) },
    ];
  },
};
