import { notifications as api } from "@study/contracts";
import { Router } from "express";
import { z } from "zod";
import { currentAuth } from "../auth/session";
import type { ServiceClients } from "../clients";
import { sendData, sendMessage } from "../http/envelope";
import { booleanParam, intParam } from "../http/query";
import { parse } from "../http/validate";

const listQuery = z.object({ limit: intParam(1, 100, 50), includeRead: booleanParam(true) });

export function notificationJson(notification: api.Notification) {
  return {
    id: notification.id,
    type: api.notificationTypeToJSON(notification.type).replace("NOTIFICATION_TYPE_", ""),
    content: notification.content,
    read: notification.read,
    userId: notification.userId,
    createdAt: notification.createdAt,
    updatedAt: notification.updatedAt,
  };
}

export function notificationsRouter(clients: ServiceClients): Router {
  const router = Router();

  router.get("/", async (req, res) => {
    const query = parse(listQuery, req.query, "query");
    const result = await clients.notifications.listNotifications({
      userId: currentAuth(res).user.id,
      limit: query.limit,
      includeRead: query.includeRead,
    });
    sendData(
      res,
      200,
      { notifications: result.notifications.map(notificationJson), unreadCount: result.unreadCount, total: result.total },
      "Notifications retrieved",
    );
  });

  router.get("/unread-count", async (_req, res) => {
    const { unreadCount } = await clients.notifications.getUnreadCount({ userId: currentAuth(res).user.id });
    sendData(res, 200, { unreadCount }, "Unread count retrieved");
  });

  router.patch("/read-all", async (_req, res) => {
    const { markedCount } = await clients.notifications.markAllNotificationsRead({ userId: currentAuth(res).user.id });
    sendData(res, 200, { markedCount }, `${markedCount} notification(s) marked as read`);
  });

  router.patch("/:id/read", async (req, res) => {
    await clients.notifications.markNotificationRead({ userId: currentAuth(res).user.id, notificationId: req.params.id });
    sendMessage(res, "Notification marked as read");
  });

  return router;
}
