import { notifications as api } from "@study/contracts";
import { bindUnaryHandlers } from "@study/grpc";
import type { Logger } from "@study/platform";
import type { CreateNotification } from "../../application/create-notification";
import type { GetUnreadCount } from "../../application/get-unread-count";
import type { ListNotifications } from "../../application/list-notifications";
import type { MarkAllRead } from "../../application/mark-all-read";
import type { MarkNotificationRead } from "../../application/mark-notification-read";
import type { Notification, NotificationType } from "../../domain/notification";

export interface NotificationUseCases {
  listNotifications: ListNotifications;
  getUnreadCount: GetUnreadCount;
  markNotificationRead: MarkNotificationRead;
  markAllRead: MarkAllRead;
  createNotification: CreateNotification;
}

const PROTO_TYPE: Record<NotificationType, api.NotificationType> = {
  SYSTEM: api.NotificationType.NOTIFICATION_TYPE_SYSTEM,
  REMINDER: api.NotificationType.NOTIFICATION_TYPE_REMINDER,
  ALERT: api.NotificationType.NOTIFICATION_TYPE_ALERT,
  MESSAGE: api.NotificationType.NOTIFICATION_TYPE_MESSAGE,
};

const DOMAIN_TYPE = new Map(Object.entries(PROTO_TYPE).map(([domain, proto]) => [proto, domain as NotificationType]));

/** The domain type of a proto enum value; null for UNSPECIFIED and values this build does not know. */
export function fromProtoType(type: api.NotificationType): NotificationType | null {
  return DOMAIN_TYPE.get(type) ?? null;
}

export function toProtoNotification(notification: Notification): api.Notification {
  return {
    id: notification.id,
    userId: notification.userId,
    type: PROTO_TYPE[notification.type],
    content: notification.content,
    read: notification.read,
    createdAt: notification.createdAt,
    updatedAt: notification.updatedAt,
  };
}

export function notificationsGrpcService(useCases: NotificationUseCases, logger: Logger): api.NotificationsServiceServer {
  return bindUnaryHandlers(logger, api.NotificationsServiceService, {
    listNotifications: async (request) => {
      // proto3 sends an absent limit as 0; include_read has no absent state, the gateway sends the REST default.
      const list = await useCases.listNotifications.execute(request.userId, {
        limit: request.limit === 0 ? undefined : request.limit,
        includeRead: request.includeRead,
      });
      return { notifications: list.notifications.map(toProtoNotification), unreadCount: list.unreadCount, total: list.total };
    },
    getUnreadCount: async (request) => ({
      unreadCount: await useCases.getUnreadCount.execute(request.userId),
    }),
    markNotificationRead: async (request) => ({
      notification: toProtoNotification(await useCases.markNotificationRead.execute(request.userId, request.notificationId)),
    }),
    markAllNotificationsRead: async (request) => ({
      markedCount: await useCases.markAllRead.execute(request.userId),
    }),
    createNotification: async (request) => {
      const notification = await useCases.createNotification.execute(
        request.userId,
        { type: fromProtoType(request.type), content: request.content },
        request.idempotencyKey,
      );
      return { notification: toProtoNotification(notification) };
    },
  });
}
