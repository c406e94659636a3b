import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";

// Study lists three tables, so its page token also names the table a page was reading; the other paging rules
// (page size, owner) are @study/platform/searchable-page's.

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
