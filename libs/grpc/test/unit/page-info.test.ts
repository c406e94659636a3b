import { pageInfo } from "@study/grpc";

describe("pageInfo", () => {
  it.each([
    // limit, offset, total, count on this page → hasMore
    [20, 0, 0, 0, false], // empty listing
    [20, 0, 5, 5, false], // everything on the first page
    [2, 0, 5, 2, true], // first page of three
    [2, 2, 5, 2, true], // middle page
    [2, 4, 5, 1, false], // last, partial page
    [2, 4, 6, 2, false], // last page, exactly full
    [10, 50, 5, 0, false], // past the end
  ])("limit %i, offset %i, total %i, %i on the page: hasMore %s", (limit, offset, total, count, hasMore) => {
    expect(pageInfo({ limit, offset, total, count })).toEqual({ limit, offset, total, hasMore });
  });
});
