import { v7 as uuidv7 } from "uuid";

/**
 * Time-ordered ids (UUIDv7, monotonic within the process) for notes, jobs and segments: listings sort by a
 * timestamp and then by id, so rows created within the same millisecond still come out in creation order.
 */
export const newId = (): string => uuidv7();
