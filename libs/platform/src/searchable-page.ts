/**
 * ListSearchables (the indexing contract, proto/study/search/v1/indexing.proto), the same in every service that
 * serves it: the page size rule, the owner filter, an opaque token naming where the previous page ended, and the
 * paging over a service's tables. A service gives only how its rows become Searchables.
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

const invalidPageToken = () => AppError.validation("Invalid page token", [{ field: "pageToken", message: "is not a token of a previous page" }]);

/** The opaque page token of a one-table listing: the last id of the previous page, base64url-encoded. */
export const encodePageToken = (lastId: string): string => Buffer.from(lastId, "utf8").toString("base64url");

/** The last id a page token names; null for the first page; INVALID_ARGUMENT for a token this service did not make. */
export function decodePageToken(token: string): string | null {
  if (token === "") return null;
  const lastId = Buffer.from(token, "base64url").toString("utf8");
  if (!isUuid(lastId) || encodePageToken(lastId) !== token) throw invalidPageToken();
  return lastId;
}

/** Where a page of a listing over several tables ended: the table it was reading and the last id it gave. */
export interface TablePagePosition<T extends string = string> {
  table: T;
  lastId: string;
}

/** The opaque page token of a listing over several tables: `<table>:<last id>`, base64url-encoded. */
export const encodeTablePageToken = (position: TablePagePosition): string =>
  Buffer.from(`${position.table}:${position.lastId}`, "utf8").toString("base64url");

/** The position a page token names; null for the first page; INVALID_ARGUMENT for a token this service did not make. */
export function decodeTablePageToken<T extends string>(token: string, tables: readonly T[]): TablePagePosition<T> | null {
  if (token === "") return null;
  const [table, lastId] = Buffer.from(token, "base64url").toString("utf8").split(":");
  const known = tables.find((name) => name === table);
  if (known === undefined || lastId === undefined || !isUuid(lastId) || encodeTablePageToken({ table: known, lastId }) !== token) {
    throw invalidPageToken();
  }
  return { table: known, lastId };
}

/** ListSearchables' user_id: absent for every user's records; when given, it must name one. */
export function searchableOwner(userId: string | undefined): string | undefined {
  if (userId === "") throw AppError.validation("Invalid user id", [{ field: "userId", message: "must not be empty when given" }]);
  return userId;
}

/** A ListSearchables request, as a source service's use case takes it. */
export interface SearchablePageQuery {
  userId?: string;
  pageToken: string;
  pageSize: number;
}

/** A ListSearchables answer. */
export interface SearchablePage<S> {
  searchables: S[];
  /** Empty after the last page. */
  nextPageToken: string;
}

/** What one read of a table asks for: one owner's rows or everyone's, after the last id of the previous page. */
export interface SearchableRange {
  userId: string | undefined;
  afterId: string | null;
  limit: number;
}

/** A table's rows in id order, as search indexes them (a service's repository read and its mapping). */
export type ReadSearchables<S> = (range: SearchableRange) => Promise<S[]>;

/**
 * SearchableSourceService.ListSearchables over one table, or several read in turn (named, in reading order), each
 * in id order: every record, or one user's, as search indexes it. A page may end in one table and go on in the
 * next; its token names the last id, and the table when there are several.
 */
export class SearchableListing<S extends { id: string }> {
  private readonly tables: readonly { name: string; read: ReadSearchables<S> }[];

  constructor(source: ReadSearchables<S> | Readonly<Record<string, ReadSearchables<S>>>) {
    this.tables = typeof source === "function" ? [{ name: "", read: source }] : Object.entries(source).map(([name, read]) => ({ name, read }));
  }

  async execute(query: SearchablePageQuery): Promise<SearchablePage<S>> {
    const userId = searchableOwner(query.userId);
    const limit = searchablePageSize(query.pageSize);
    const position = this.position(query.pageToken);
    const searchables: S[] = [];
    for (let index = position.index, afterId = position.afterId; index < this.tables.length; index += 1, afterId = null) {
      const wanted = limit - searchables.length;
      // One row more than wanted tells whether this table goes on after the page.
      const read = await this.tables[index].read({ userId, afterId, limit: wanted + 1 });
      searchables.push(...read.slice(0, wanted));
      if (searchables.length < limit) continue;
      const more = read.length > wanted || (await this.anyAfter(index, userId));
      return { searchables, nextPageToken: more ? this.pageToken(index, searchables[searchables.length - 1].id) : "" };
    }
    return { searchables, nextPageToken: "" };
  }

  private position(token: string): { index: number; afterId: string | null } {
    if (this.tables.length === 1) return { index: 0, afterId: decodePageToken(token) };
    const position = decodeTablePageToken(
      token,
      this.tables.map((table) => table.name),
    );
    return position
      ? { index: this.tables.findIndex((table) => table.name === position.table), afterId: position.lastId }
      : { index: 0, afterId: null };
  }

  private pageToken(index: number, lastId: string): string {
    return this.tables.length === 1 ? encodePageToken(lastId) : encodeTablePageToken({ table: this.tables[index].name, lastId });
  }

  /** Whether a table after `index` holds a record, so that a page ending a table is not the last one. */
  private async anyAfter(index: number, userId: string | undefined): Promise<boolean> {
    for (const later of this.tables.slice(index + 1)) {
      if ((await later.read({ userId, afterId: null, limit: 1 })).length > 0) return true;
    }
    return false;
  }
}
