import { notifications as api } from "@study/contracts";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { idParams } from "../http/params";
import { sendData, sendMessage } from "../http/envelope";
import { booleanParam, intParam } from "../http/query";
import { restEnum } from "./shared/mappers";

const notificationType = restEnum(api.NotificationType, "NOTIFICATION_TYPE");

const notificationSchema = z
  .object({
    id: z.string(),
    type: z.enum(notificationType.names),
    content: z.string(),
    read: z.boolean(),
    userId: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Notification" });

export function notificationJson(notification: api.Notification) {
  return {
    id: notification.id,
    type: notificationType.toRest(notification.type),
    content: notification.content,
    read: notification.read,
    userId: notification.userId,
    createdAt: notification.createdAt,
    updatedAt: notification.updatedAt,
  };
}

const tag = "Notifications";

export function notificationRoutes(clients: ServiceClients): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/api/notifications",
      tag,
      summary: "List the caller's notifications, newest first",
      auth: true,
      query: z.object({ limit: intParam(1, 100, 50), includeRead: booleanParam(true) }),
      responses: {
        200: {
          description: "Notifications with counts (total: matching the filter, before the limit)",
          schema: dataEnvelope(z.object({ notifications: z.array(notificationSchema), unreadCount: z.number().int(), total: z.number().int() })),
        },
      },
      async handler({ userId, query, res }) {
        const result = await clients.notifications.listNotifications({
          userId,
          limit: query.limit,
          includeRead: query.includeRead,
        });
        sendData(
          res,
          200,
          { notifications: result.notifications.map(notificationJson), unreadCount: result.unreadCount, total: result.total },
          "Notifications retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/notifications/unread-count",
      tag,
      summary: "Count the caller's unread notifications",
      auth: true,
      responses: { 200: { description: "The count", schema: dataEnvelope(z.object({ unreadCount: z.number().int() })) } },
      async handler({ userId, res }) {
        const { unreadCount } = await clients.notifications.getUnreadCount({ userId });
        sendData(res, 200, { unreadCount }, "Unread count retrieved");
      },
    }),
    route({
      method: "patch",
      path: "/api/notifications/read-all",
      tag,
      summary: "Mark every unread notification read",
      auth: true,
      responses: { 200: { description: "How many changed", schema: dataEnvelope(z.object({ markedCount: z.number().int() })) } },
      async handler({ userId, res }) {
        const { markedCount } = await clients.notifications.markAllNotificationsRead({ userId });
        sendData(res, 200, { markedCount }, `${markedCount} notification(s) marked as read`);
      },
    }),
    route({
      method: "patch",
      path: "/api/notifications/:id/read",
      tag,
      summary: "Mark one notification read",
      auth: true,
      params: idParams,
      responses: {
        200: { description: "Marked (also when it already was)", schema: messageEnvelope },
        404: { description: "No such notification of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, res }) {
        await clients.notifications.markNotificationRead({ userId, notificationId: params.id });
        sendMessage(res, "Notification marked as read");
      },
    }),
  ];
}
