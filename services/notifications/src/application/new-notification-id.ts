import { v7 as uuidv7 } from "uuid";

/**
 * Time-ordered ids (UUIDv7, monotonic within the process): listings sort by createdAt and then by id, so
 * notifications created within the same millisecond still come out newest first.
 */
export const newNotificationId = (): string => uuidv7();
