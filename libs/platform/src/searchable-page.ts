/**
 * Paging of ListSearchables (the indexing contract, proto/study/search/v1/indexing.proto), the same in every service
 * that serves it: the page size rule, the owner filter, and an opaque token naming the last id of the previous page.
 */
import { AppError } from "./errors";
import { isUuid } from "./ids";

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

/** The opaque page token: the last id of the previous page, base64url-encoded. */
export const encodePageToken = (lastId: string): string => Buffer.from(lastId, "utf8").toString("base64url");

/** The last id a page token names; null for the first page; INVALID_ARGUMENT for a token this service did not make. */
export function decodePageToken(token: string): string | null {
  if (token === "") return null;
  const lastId = Buffer.from(token, "base64url").toString("utf8");
  if (!isUuid(lastId) || encodePageToken(lastId) !== token) {
    throw AppError.validation("Invalid page token", [{ field: "pageToken", message: "is not a token of a previous page" }]);
  }
  return lastId;
}

/** ListSearchables' user_id: absent for every user's records; when given, it must name one. */
export function searchableOwner(userId: string | undefined): string | undefined {
  if (userId === "") throw AppError.validation("Invalid user id", [{ field: "userId", message: "must not be empty when given" }]);
  return userId;
}
