/**
 * Row ids, importable from application code: this module loads no gRPC (`@study/grpc/ids`).
 */
import { v7 as uuidv7 } from "uuid";

/**
 * A new row id: a time-ordered UUIDv7, monotonic within the process. Listings sort by a timestamp and then by id,
 * so rows created within the same millisecond still come out in creation order.
 */
export const newId = (): string => uuidv7();
