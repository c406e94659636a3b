import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";

export const DEFAULT_SEARCHABLE_PAGE_SIZE = 500;
export const MAX_SEARCHABLE_PAGE_SIZE = 1000;

/** ListSearchables' page_size: 1-1000, 0 (unset) meaning 500. */
export function searchablePageSize(pageSize: number): number {
  if (pageSize === 0) return DEFAULT_SEARCHABLE_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_SEARCHABLE_PAGE_SIZE) {
    throw AppError.validation("Invalid page size", [{ field: "pageSize", message: `must be between 1 and ${MAX_SEARCHABLE_PAGE_SIZE}` }]);
  }
  return pageSize;
}

/** Where a page ended: the table it was reading and the last id it gave. */
export interface PagePosition<T extends string> {
  table: T;
  lastId: string;
}

/** The opaque page token: `<table>:<last id>`, base64url-encoded. */
export const encodePageToken = <T extends string>(position: PagePosition<T>): string =>
  Buffer.from(`${position.table}:${position.lastId}`, "utf8").toString("base64url");

/** The position a page token names; null for the first page; INVALID_ARGUMENT for a token this service did not make. */
export function decodePageToken<T extends string>(token: string, tables: readonly T[]): PagePosition<T> | null {
  if (token === "") return null;
  const [table, lastId] = Buffer.from(token, "base64url").toString("utf8").split(":");
  const known = tables.find((name) => name === table);
  if (known === undefined || lastId === undefined || !isUuid(lastId) || encodePageToken({ table: known, lastId }) !== token) {
    throw AppError.validation("Invalid page token", [{ field: "pageToken", message: "is not a token of a previous page" }]);
  }
  return { table: known, lastId };
}

/** ListSearchables' user_id: absent for every user's records; when given, it must name one. */
export function searchableOwner(userId: string | undefined): string | undefined {
  if (userId === "") throw AppError.validation("Invalid user id", [{ field: "userId", message: "must not be empty when given" }]);
  return userId;
}
