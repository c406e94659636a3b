import { AppError } from "./errors";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Resource ids are UUIDs; a value that is not one cannot name a resource (callers answer NOT_FOUND). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Every owner-scoped call names its user; an empty user id is a caller bug, refused as invalid input. */
export function requireUserId(userId: string): string {
  if (!userId) throw AppError.validation("user_id is required", [{ field: "userId", message: "is required" }]);
  return userId;
}
