import { createLogger } from "@study/platform";
import { startMeilisearchStandIn, type MeilisearchStandIn } from "@study/testkit";
import { Meilisearch } from "meilisearch";
import {
  MEILISEARCH_INDEX_SETTINGS,
  MeilisearchIndexError,
  MeilisearchSearchIndex,
  documentKey,
  meilisearchFilter,
} from "../../src/adapters/index/meilisearch/meilisearch-search-index";
import type { IndexQuery } from "../../src/application/ports/search-index.port";
import type { SearchRecord } from "../../src/domain/search-record";
import { searchIndexContract } from "../contract/search-index.contract";

/**
 * The Meilisearch adapter against the stand-in server (libs/testkit/src/meilisearch): what it sends (settings,
 * filters, the key) and how it reads the answers. The behaviour both adapters share is the contract suite's.
 */

const logger = createLogger("search-meilisearch-test", "silent");
const HOSTILE_USER = 'u-evil" OR userId != "nobody\\';

function record(overrides: Partial<SearchRecord> & Pick<SearchRecord, "id" | "title">): SearchRecord {
  return {
    type: "note",
    userId: "user-1",
    keywords: [],
    description: "",
    content: "",
    metadata: {},
    createdAt: new Date("2026-03-01T10:00:00Z"),
    updatedAt: new Date("2026-03-01T10:00:00Z"),
    ...overrides,
  };
}

function query(overrides: Partial<IndexQuery> & Pick<IndexQuery, "text">): IndexQuery {
  return { userId: "user-1", minRelevance: 0, limit: 50, offset: 0, ...overrides };
}

searchIndexContract("meilisearch (stand-in server)", async () => {
  const server = await startMeilisearchStandIn();
  const index = await MeilisearchSearchIndex.open({ url: server.url, apiKey: server.apiKey }, logger);
  return { index, close: () => server.close() };
});

const searchBodies = (server: MeilisearchStandIn) =>
  server.requests
    .filter((request) => request.method === "POST" && request.path.endsWith("/search"))
    .map((request) => request.body as Record<string, unknown>);

describe("MeilisearchSearchIndex", () => {
  let server: MeilisearchStandIn;
  let index: MeilisearchSearchIndex;

  beforeAll(async () => {
    // Tasks wait a little before they run: a write that did not wait for its task would not be read back.
    server = await startMeilisearchStandIn({ apiKey: "search-test-key", taskDelayMs: 20 });
    index = await MeilisearchSearchIndex.open({ url: server.url, apiKey: server.apiKey, indexName: "records" }, logger);
  });

  afterAll(async () => {
    await server.close();
  });

  it("creates the index with primary key `key` and applies the settings, sending the API key on every request", async () => {
    const creations = server.requests.filter((request) => request.method === "POST" && request.path === "/indexes");
    expect(creations.map((request) => request.body)).toEqual([{ uid: "records", primaryKey: "key" }]);
    const settings = server.requests.filter((request) => request.method === "PATCH" && request.path === "/indexes/records/settings");
    expect(settings.map((request) => request.body)).toEqual([
      {
        searchableAttributes: ["title", "keywords", "description", "content"],
        filterableAttributes: ["userId", "courseId", "type", "difficulty", "status", "createdAt"],
        sortableAttributes: ["createdAt"],
        typoTolerance: { enabled: true },
        pagination: { maxTotalHits: MEILISEARCH_INDEX_SETTINGS.pagination.maxTotalHits },
      },
    ]);
    const client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
    await expect(client.index("records").getSettings()).resolves.toMatchObject({
      searchableAttributes: ["title", "keywords", "description", "content"],
      filterableAttributes: ["userId", "courseId", "type", "difficulty", "status", "createdAt"],
      sortableAttributes: ["createdAt"],
      typoTolerance: { enabled: true },
    });
    expect(server.requests.every((request) => request.authorization === "Bearer search-test-key")).toBe(true);

    // Opening again finds the index and only re-applies the settings.
    const before = server.requests.length;
    await MeilisearchSearchIndex.open({ url: server.url, apiKey: server.apiKey, indexName: "records" }, logger);
    expect(server.requests.slice(before).filter((request) => request.path === "/indexes")).toEqual([]);
  });

  it("reads its own writes: upsert, remove and removeUser wait for their tasks", async () => {
    await index.upsert([record({ id: "ryw-1", title: "Thermodynamics entropy" })]);
    expect((await index.search(query({ text: "entropy" }))).hits.map((hit) => hit.record.id)).toEqual(["ryw-1"]);
    await index.remove([{ type: "note", id: "ryw-1" }]);
    expect((await index.search(query({ text: "entropy" }))).total).toBe(0);
  });

  it("stores documents with a safe key, dates as unix milliseconds, and reads the records back unchanged", async () => {
    const stored = record({
      id: "id with spaces/and_underscore",
      type: "flashcard_set",
      courseId: "course-1",
      title: "Cell biology cards",
      keywords: ["BIO 101"],
      description: "Mitochondria and ribosomes",
      content: "What is the powerhouse of the cell — the mitochondria",
      difficulty: "HARD",
      metadata: { cardCount: "12" },
      createdAt: new Date("2026-02-03T04:05:06.789Z"),
      updatedAt: new Date("2026-02-04T00:00:00.000Z"),
    });
    await index.upsert([stored]);
    const document = server.documents("records").find((candidate) => candidate.id === stored.id);
    expect(document).toMatchObject({
      key: "flashcard_set-id_20with_20spaces_2fand_5funderscore",
      createdAt: Date.parse("2026-02-03T04:05:06.789Z"),
      updatedAt: Date.parse("2026-02-04T00:00:00.000Z"),
      status: null,
    });
    const page = await index.search(query({ text: "mitochondria" }));
    expect(page.hits[0].record).toEqual(stored);
    await index.remove([stored]);
  });

  it("keeps keys of distinct records distinct", () => {
    const keys = ["a b", "a_20b", "a-b", "a_b", "ä", "a%20b"].map((id) => documentKey({ type: "note", id }));
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{1,511}$/);
  });

  it("quotes and escapes every filter value, so that no value can change the expression", () => {
    expect(
      meilisearchFilter([
        { field: "userId", operator: "=", value: HOSTILE_USER },
        { field: "type", in: ["note", 'quiz"]'] },
        { field: "createdAt", operator: ">=", value: 1700000000000 },
      ]),
    ).toBe('userId = "u-evil\\" OR userId != \\"nobody\\\\" AND type IN ["note", "quiz\\"]"] AND createdAt >= "1700000000000"');
  });

  it("restricts every search, suggestion and user-wide delete to the user, even a user id made to break the filter", async () => {
    await index.upsert([
      record({ id: "iso-1", userId: HOSTILE_USER, title: "Shared topic: volcanoes" }),
      record({ id: "iso-2", userId: "user-2", title: "Shared topic: volcanoes of Iceland" }),
      record({ id: "iso-3", userId: "user-3\\", title: "Volcanoes and backslashes" }),
    ]);
    const hostile = await index.search(query({ userId: HOSTILE_USER, text: "volcanoes" }));
    expect(hostile.hits.map((hit) => hit.record.id)).toEqual(["iso-1"]);
    expect(hostile.total).toBe(1);
    expect(hostile.byType).toEqual({ note: 1 });
    expect((await index.search(query({ userId: "user-3\\", text: "volcanoes" }))).hits.map((hit) => hit.record.id)).toEqual(["iso-3"]);
    expect(await index.suggest(HOSTILE_USER, "volc", 5)).toEqual(["Shared topic: volcanoes"]);
    const filters = searchBodies(server).map((body) => body.filter);
    expect(filters).toContain('userId = "u-evil\\" OR userId != \\"nobody\\\\"');

    await index.removeUser(HOSTILE_USER);
    const remaining = server.documents("records").map((document) => document.id);
    expect(remaining).toEqual(expect.arrayContaining(["iso-2", "iso-3"]));
    expect(remaining).not.toContain("iso-1");
    const deletion = server.requests.filter((request) => request.path === "/indexes/records/documents/delete").at(-1);
    expect(deletion?.body).toEqual({ filter: 'userId = "u-evil\\" OR userId != \\"nobody\\\\"' });
    await index.removeUser("user-2");
    await index.removeUser("user-3\\");
  });

  it("keeps user ids that differ only by escapes apart: backslashes are escaped, not decoded", async () => {
    // Meilisearch decodes Rust escapes (`\\`, `\u{41}`, `\n`) inside quoted filter values: an unescaped backslash would
    // turn `case\u{41}` into `caseA`, another user.
    const users = ["case\\u{41}", "caseA", "case\\n", "case\n", 'case\\"', "case\\"];
    await index.upsert(users.map((userId, position) => record({ id: `esc-${position}`, userId, title: "Escaped identity" })));
    for (const [position, userId] of users.entries()) {
      const page = await index.search(query({ userId, text: "escaped identity" }));
      expect(page.hits.map((hit) => hit.record.id)).toEqual([`esc-${position}`]);
    }
    for (const userId of users) await index.removeUser(userId);
    expect(server.documents("records").filter((document) => String(document.id).startsWith("esc-"))).toEqual([]);
  });

  it("maps hits: relevanceScore from _rankingScore, snippet and highlights from _formatted, totals and byType", async () => {
    const user = "user-map";
    await index.upsert([
      record({ id: "m-1", userId: user, title: "Photosynthesis", description: "How plants turn light into sugar" }),
      record({
        id: "m-2",
        userId: user,
        type: "quiz",
        title: "Plant biology quiz",
        content: `${"Filler words come first in this long text. ".repeat(8)}Chlorophyll drives photosynthesis in the leaves. ${"More filler follows. ".repeat(8)}`,
      }),
      record({ id: "m-3", userId: user, type: "course", title: "Unrelated", description: "Nothing to see" }),
    ]);
    const page = await index.search(query({ userId: user, text: "photosynthesis" }));
    expect(page.total).toBe(2);
    expect(page.byType).toEqual({ note: 1, quiz: 1 });
    const [first, second] = page.hits;
    expect(first.record.id).toBe("m-1");
    expect(first.relevanceScore).toBe(1);
    expect(first.snippet).toBe("<mark>Photosynthesis</mark>");
    expect(first.highlights).toEqual(["Photosynthesis"]);
    expect(second.relevanceScore).toBeGreaterThan(0);
    expect(second.relevanceScore).toBeLessThan(first.relevanceScore);
    expect(second.snippet).toContain("<mark>photosynthesis</mark>");
    expect(second.snippet.startsWith("…")).toBe(true);
    expect(second.snippet.split(/\s+/).length).toBeLessThanOrEqual(31);

    // A prefix highlight names the whole word.
    const prefix = await index.search(query({ userId: user, text: "photosyn" }));
    expect(prefix.hits[0].highlights).toEqual(["Photosynthesis"]);

    // minRelevance is Meilisearch's rankingScoreThreshold: hits below it are neither returned nor counted.
    const strict = await index.search(
      query({ userId: user, text: "photosynthesis", minRelevance: (first.relevanceScore + second.relevanceScore) / 2 }),
    );
    expect(strict.hits.map((hit) => hit.record.id)).toEqual(["m-1"]);
    expect(strict.total).toBe(1);
    expect(strict.byType).toEqual({ note: 1 });
    expect(searchBodies(server).at(-1)).toMatchObject({
      rankingScoreThreshold: (first.relevanceScore + second.relevanceScore) / 2,
      showRankingScore: true,
    });
    await index.removeUser(user);
  });

  it("pages with exact totals for any offset, and filters by type, course, dates, difficulty and status", async () => {
    const user = "user-page";
    const records = Array.from({ length: 7 }, (_, position) =>
      record({
        id: `p-${position}`,
        userId: user,
        type: position % 2 === 0 ? "note" : "study_guide",
        courseId: position < 4 ? "course-a" : "course-b",
        title: `Calculus chapter ${position}`,
        difficulty: position % 3 === 0 ? "EASY" : "HARD",
        status: position === 6 ? "PROCESSING" : "COMPLETED",
        createdAt: new Date(Date.UTC(2026, 0, 1 + position)),
      }),
    );
    await index.upsert(records);
    const all = await index.search(query({ userId: user, text: "calculus" }));
    expect(all.total).toBe(7);
    const ids = all.hits.map((hit) => hit.record.id);

    const aligned = await index.search(query({ userId: user, text: "calculus", offset: 4, limit: 2 }));
    expect(aligned.hits.map((hit) => hit.record.id)).toEqual(ids.slice(4, 6));
    expect(aligned.total).toBe(7);
    const unaligned = await index.search(query({ userId: user, text: "calculus", offset: 3, limit: 2 }));
    expect(unaligned.hits.map((hit) => hit.record.id)).toEqual(ids.slice(3, 5));
    expect(unaligned.total).toBe(7);
    expect(searchBodies(server).at(-1)).toMatchObject({ page: 1, hitsPerPage: 5 });

    const filtered = await index.search(
      query({
        userId: user,
        text: "calculus",
        types: ["note"],
        courseId: "course-a",
        createdFrom: new Date(Date.UTC(2026, 0, 1)),
        createdBefore: new Date(Date.UTC(2026, 0, 4)),
        difficulty: ["EASY", "HARD"],
        status: ["COMPLETED"],
      }),
    );
    expect(filtered.hits.map((hit) => hit.record.id).sort()).toEqual(["p-0", "p-2"]);
    expect(filtered.byType).toEqual({ note: 2 });
    expect(searchBodies(server).at(-1)?.filter).toBe(
      'userId = "user-page" AND type IN ["note"] AND courseId = "course-a" AND createdAt >= "1767225600000" AND createdAt < "1767484800000" AND difficulty IN ["EASY", "HARD"] AND status IN ["COMPLETED"]',
    );
    await index.removeUser(user);
  });

  it("suggests the user's titles and keywords that match the prefix", async () => {
    const user = "user-suggest";
    await index.upsert([
      record({ id: "s-1", userId: user, type: "course", title: "Microeconomics", keywords: ["ECON 201", "Prof. Mankiw"] }),
      record({ id: "s-2", userId: user, title: "Microbiology lab notes" }),
      record({ id: "s-3", userId: "someone-else", title: "Microscopy" }),
    ]);
    const suggestions = await index.suggest(user, "micro", 10);
    expect(suggestions.sort()).toEqual(["Microbiology lab notes", "Microeconomics"]);
    expect(await index.suggest(user, "econ", 10)).toEqual(["ECON 201"]);
    expect(await index.suggest(user, "micro", 1)).toHaveLength(1);
    await index.removeUser(user);
    await index.removeUser("someone-else");
  });

  it("turns Meilisearch's errors into MeilisearchIndexError with Meilisearch's code", async () => {
    const wrongKey = MeilisearchSearchIndex.open({ url: server.url, apiKey: "not-the-key", indexName: "records" }, logger);
    await expect(wrongKey).rejects.toBeInstanceOf(MeilisearchIndexError);
    await expect(wrongKey).rejects.toMatchObject({ code: "invalid_api_key" });

    const doomed = await MeilisearchSearchIndex.open({ url: server.url, apiKey: server.apiKey, indexName: "doomed" }, logger);
    await new Meilisearch({ host: server.url, apiKey: server.apiKey }).deleteIndex("doomed").waitTask();
    await expect(doomed.search(query({ text: "anything" }))).rejects.toMatchObject({ name: "MeilisearchIndexError", code: "index_not_found" });

    // An index made by someone else with another primary key is not taken over.
    await new Meilisearch({ host: server.url, apiKey: server.apiKey }).createIndex("foreign", { primaryKey: "id" }).waitTask();
    await expect(MeilisearchSearchIndex.open({ url: server.url, apiKey: server.apiKey, indexName: "foreign" }, logger)).rejects.toMatchObject({
      code: "index_primary_key_mismatch",
    });

    const unreachable = MeilisearchSearchIndex.open({ url: "http://127.0.0.1:9", apiKey: "x" }, logger);
    await expect(unreachable).rejects.toMatchObject({ code: "request_failed" });
  });
});
