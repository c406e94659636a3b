import {
  DEFAULT_SEARCHABLE_PAGE_SIZE,
  decodePageToken,
  decodeTablePageToken,
  encodePageToken,
  encodeTablePageToken,
  SearchableListing,
  type SearchableRange,
} from "../../src/searchable-page";
import { refusal } from "@study/testkit/refusal";

const id = (n: number) => `0190a5f4-0000-7000-8000-0000000001${String(n).padStart(2, "0")}`;

interface Row {
  id: string;
  owner: string;
}

/** A table over rows: what a repository's listPageAfter answers, in id order. */
const table = (rows: Row[]) => {
  const reads: SearchableRange[] = [];
  const read = async (range: SearchableRange) => {
    reads.push(range);
    return rows
      .filter((row) => (range.userId === undefined || row.owner === range.userId) && (range.afterId === null || row.id > range.afterId))
      .slice(0, range.limit);
  };
  return { read, reads };
};

/** Every page of a listing, by the ids it holds. */
async function pages(listing: SearchableListing<Row>, query: { userId?: string; pageSize: number }): Promise<string[][]> {
  const found: string[][] = [];
  let pageToken = "";
  do {
    const page = await listing.execute({ ...query, pageToken });
    found.push(page.searchables.map((row) => row.id));
    pageToken = page.nextPageToken;
  } while (pageToken !== "");
  return found;
}

describe("SearchableListing over one table", () => {
  const rows = [id(1), id(2), id(3)].map((rowId, index) => ({ id: rowId, owner: index === 1 ? "bob" : "alice" }));

  it("pages in id order, asking one row more than the page, its token the last id; the last page has none", async () => {
    const source = table(rows);
    const listing = new SearchableListing(source.read);
    expect(await pages(listing, { pageSize: 2 })).toEqual([[id(1), id(2)], [id(3)]]);
    expect(source.reads).toEqual([
      { userId: undefined, afterId: null, limit: 3 },
      { userId: undefined, afterId: id(2), limit: 3 },
    ]);
    const first = await listing.execute({ pageToken: "", pageSize: 2 });
    expect(decodePageToken(first.nextPageToken)).toBe(id(2));
    // A page that ends exactly at the last row says so: no empty page to fetch.
    expect(await pages(listing, { pageSize: 3 })).toEqual([[id(1), id(2), id(3)]]);
    expect(await pages(listing, { userId: "bob", pageSize: 1 })).toEqual([[id(2)]]);
  });

  it(`reads ${DEFAULT_SEARCHABLE_PAGE_SIZE} rows by default and refuses a bad size, a foreign token and an empty owner`, async () => {
    const source = table(rows);
    const listing = new SearchableListing(source.read);
    await listing.execute({ pageToken: "", pageSize: 0 });
    expect(source.reads).toEqual([{ userId: undefined, afterId: null, limit: DEFAULT_SEARCHABLE_PAGE_SIZE + 1 }]);
    for (const pageSize of [-1, 1001, 1.5]) {
      expect(await refusal(() => listing.execute({ pageToken: "", pageSize }))).toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ field: "pageSize" }],
      });
    }
    for (const pageToken of ["garbage!", encodePageToken("not-a-uuid"), encodeTablePageToken({ table: "quiz", lastId: id(1) })]) {
      expect(await refusal(() => listing.execute({ pageToken, pageSize: 0 }))).toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ field: "pageToken" }],
      });
    }
    expect(await refusal(() => listing.execute({ userId: "", pageToken: "", pageSize: 0 }))).toMatchObject({ details: [{ field: "userId" }] });
  });
});

describe("SearchableListing over several tables", () => {
  const sets = [
    { id: id(1), owner: "alice" },
    { id: id(2), owner: "bob" },
  ];
  const quizzes: Row[] = [];
  const guides = [{ id: id(3), owner: "alice" }];
  const listing = () => new SearchableListing({ flashcard_set: table(sets).read, quiz: table(quizzes).read, study_guide: table(guides).read });

  it("reads the tables in turn, a page going on in the next (an empty one skipped), its token naming the table", async () => {
    expect(await pages(listing(), { pageSize: 1 })).toEqual([[id(1)], [id(2)], [id(3)]]);
    expect(await pages(listing(), { pageSize: 2 })).toEqual([[id(1), id(2)], [id(3)]]);
    // A page that ends a table while a later one has rows is not the last.
    const first = await listing().execute({ pageToken: "", pageSize: 2 });
    expect(decodeTablePageToken(first.nextPageToken, ["flashcard_set", "quiz", "study_guide"])).toEqual({ table: "flashcard_set", lastId: id(2) });
    expect(await pages(listing(), { userId: "alice", pageSize: 1 })).toEqual([[id(1)], [id(3)]]);
    expect(await pages(listing(), { userId: "bob", pageSize: 1 })).toEqual([[id(2)]]);
  });

  it("refuses a token naming no table of its own, or a plain one-table token", async () => {
    for (const pageToken of [encodeTablePageToken({ table: "notes", lastId: id(1) }), encodePageToken(id(1))]) {
      expect(await refusal(() => listing().execute({ pageToken, pageSize: 0 }))).toMatchObject({ details: [{ field: "pageToken" }] });
    }
  });
});
