import { AppError } from "@study/platform";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Notification ids are UUIDs; anything else cannot name a notification, so it is reported as not found. */
export function isNotificationId(value: string): boolean {
  return UUID.test(value);
}

export function requireUserId(userId: string): string {
  if (!userId) throw AppError.validation("user_id is required", [{ field: "userId", message: "is required" }]);
  return userId;
}
