import { notifications as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaNotificationRepository } from "./adapters/db/prisma-notification-repository";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { notificationsGrpcService } from "./adapters/grpc/notifications-grpc-service";
import { scheduleCleanup } from "./adapters/scheduler/cleanup-scheduler";
import { CleanupReadNotifications } from "./application/cleanup-read-notifications";
import { CreateNotification } from "./application/create-notification";
import { GetUnreadCount } from "./application/get-unread-count";
import { ListNotifications } from "./application/list-notifications";
import { MarkAllRead } from "./application/mark-all-read";
import { MarkNotificationRead } from "./application/mark-notification-read";
import { NotifyOnEvent } from "./application/notify-on-event";
import { notificationsConfigSchema, type NotificationsConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { notificationsMigrations } from "./migrations";

/** The composition of the notifications service: adapters → use cases → gRPC, event consumer and cleanup schedule. */
export const notificationsService: ServiceDefinition<PrismaClient, NotificationsConfig> = {
  ...notificationsMigrations,
  configSchema: notificationsConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger, lifecycle }) {
    const repository = new PrismaNotificationRepository(db);

    await startDomainEventsConsumer({
      ...consumerLink,
      notifyOnEvent: new NotifyOnEvent(repository),
    });

    const cleanup = new CleanupReadNotifications(repository, config.NOTIFICATION_RETENTION_DAYS);
    const scheduledCleanup = scheduleCleanup(config.NOTIFICATION_CLEANUP_CRON, cleanup, logger);
    lifecycle.onStop("notification cleanup", () => scheduledCleanup.stop());

    const implementation = notificationsGrpcService(
      {
        listNotifications: new ListNotifications(repository),
        getUnreadCount: new GetUnreadCount(repository),
        markNotificationRead: new MarkNotificationRead(repository),
        markAllRead: new MarkAllRead(repository),
        createNotification: new CreateNotification(repository),
      },
      logger,
    );
    return [{ definition: api.NotificationsServiceService, implementation }];
  },
};
