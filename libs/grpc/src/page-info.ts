/** The page block of a listing response: where the page starts, how big it may be, and whether more follows. */
export interface PageInfo {
  limit: number;
  offset: number;
  total: number;
  hasMore: boolean;
}

/** `count` is the number of items on this page; more follow when the page ends before `total`. */
export function pageInfo(page: { limit: number; offset: number; total: number; count: number }): PageInfo {
  return { limit: page.limit, offset: page.offset, total: page.total, hasMore: page.offset + page.count < page.total };
}
