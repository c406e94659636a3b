import { Meilisearch, MeilisearchApiError, type Task } from "meilisearch";
import { startMeilisearchStandIn, type MeilisearchStandIn } from "../src/meilisearch";

/** The stand-in driven by the official client, as an application would drive Meilisearch. */

const documents = [
  { id: "1", userId: "u1", kind: "note", title: "Linear algebra", body: "Vectors, matrices and the determinant of a square matrix.", createdAt: 100 },
  {
    id: "2",
    userId: "u1",
    kind: "quiz",
    title: "Organic chemistry",
    body: "Alkanes, alkenes and a question about linear molecules.",
    createdAt: 200,
  },
  { id: "3", userId: "u2", kind: "note", title: 'Quotes "and" back\\slashes', body: "History of the printing press.", createdAt: 300 },
  {
    id: "4",
    userId: "u1",
    kind: "course",
    title: "Photosynthesis",
    body: "Chlorophyll absorbs light; the Calvin cycle fixes carbon.",
    createdAt: 400,
  },
];

async function apiError(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MeilisearchApiError) return { status: error.response.status, body: error.cause };
    throw error;
  }
  throw new Error("expected Meilisearch to refuse the request");
}

describe("Meilisearch stand-in", () => {
  let server: MeilisearchStandIn;
  let client: Meilisearch;

  beforeAll(async () => {
    server = await startMeilisearchStandIn({ apiKey: "master-key" });
    client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
    const created = await client.createIndex("records", { primaryKey: "id" }).waitTask();
    expect(created).toMatchObject({ status: "succeeded", type: "indexCreation", indexUid: "records", error: null });
    const settings = await client
      .index("records")
      .updateSettings({
        searchableAttributes: ["title", "body"],
        filterableAttributes: ["userId", "kind", "createdAt"],
        typoTolerance: { enabled: true },
      })
      .waitTask();
    expect(settings.status).toBe("succeeded");
    const added = await client.index("records").addDocuments(documents).waitTask();
    expect(added).toMatchObject({ status: "succeeded", type: "documentAdditionOrUpdate", details: { receivedDocuments: 4, indexedDocuments: 4 } });
  });

  afterAll(async () => {
    await server.close();
  });

  it("answers health without a key and checks the bearer key everywhere else, with Meilisearch's error bodies", async () => {
    await expect(new Meilisearch({ host: server.url }).health()).resolves.toEqual({ status: "available" });
    await expect(client.getVersion()).resolves.toMatchObject({ pkgVersion: expect.any(String) });
    expect(await apiError(new Meilisearch({ host: server.url }).getVersion())).toEqual({
      status: 401,
      body: {
        message: "The Authorization header is missing. It must use the bearer authorization method.",
        code: "missing_authorization_header",
        type: "auth",
        link: "https://docs.meilisearch.com/errors#missing_authorization_header",
      },
    });
    expect(await apiError(new Meilisearch({ host: server.url, apiKey: "wrong" }).index("records").search("algebra"))).toEqual({
      status: 403,
      body: {
        message: "The provided API key is invalid.",
        code: "invalid_api_key",
        type: "auth",
        link: "https://docs.meilisearch.com/errors#invalid_api_key",
      },
    });
  });

  it("answers writes with an enqueued task that the task route then shows succeeded", async () => {
    const enqueued = await client.index("records").addDocuments([{ id: "5", userId: "u3", title: "Temporary", body: "", createdAt: 1 }]);
    expect(enqueued).toEqual({
      taskUid: expect.any(Number),
      indexUid: "records",
      status: "enqueued",
      type: "documentAdditionOrUpdate",
      enqueuedAt: expect.any(String),
    });
    const task: Task = await client.tasks.waitForTask(enqueued.taskUid);
    expect(task).toMatchObject({
      uid: enqueued.taskUid,
      status: "succeeded",
      error: null,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    await client.index("records").deleteDocuments(["5"]).waitTask();
    expect(await apiError(client.tasks.getTask(9999))).toMatchObject({ status: 404, body: { code: "task_not_found" } });
  });

  it("finds words with typos and the last word as a prefix, the title ranked before the body", async () => {
    const index = client.index("records");
    const typo = await index.search("algebar", { filter: 'userId = "u1"' });
    expect(typo.hits.map((hit) => hit.id)).toEqual(["1"]);
    // 7 letters allow one typo, and a typo on the first letter counts as two
    expect((await index.search("alkanex")).hits.map((hit) => hit.id)).toEqual(["2"]);
    expect((await index.search("xlkanes")).hits).toEqual([]);
    expect((await index.search("alkxnex")).hits).toEqual([]);
    const prefix = await index.search("photo");
    expect(prefix.hits.map((hit) => hit.id)).toEqual(["4"]);
    const ranked = await index.search("linear", { showRankingScore: true });
    expect(ranked.hits.map((hit) => hit.id)).toEqual(["1", "2"]);
    const [titleHit, bodyHit] = ranked.hits;
    expect(titleHit._rankingScore).toBeGreaterThan(bodyHit._rankingScore ?? 1);
    expect(bodyHit._rankingScore).toBeGreaterThan(0);
    const exact = await index.search("Photosynthesis", { showRankingScore: true });
    expect(exact.hits[0]._rankingScore).toBe(1);
  });

  it("highlights and crops in _formatted, and counts facets", async () => {
    const response = await client.index("records").search("determinant", {
      attributesToHighlight: ["title", "body"],
      highlightPreTag: "<mark>",
      highlightPostTag: "</mark>",
      attributesToCrop: ["body"],
      cropLength: 4,
      facets: ["kind"],
    });
    expect(response.hits[0]._formatted).toMatchObject({ title: "Linear algebra", body: "…the <mark>determinant</mark> of a…", createdAt: "100" });
    expect(response.facetDistribution).toEqual({ kind: { note: 1 } });
    const prefix = await client.index("records").search("photo", { attributesToHighlight: ["title"] });
    expect(prefix.hits[0]._formatted?.title).toBe("<em>Photo</em>synthesis");
  });

  it("paginates with offset/limit (estimatedTotalHits) or page/hitsPerPage (totalHits), after rankingScoreThreshold", async () => {
    const index = client.index("records");
    const estimated = await index.search("", { offset: 1, limit: 2 });
    expect(estimated).toMatchObject({ offset: 1, limit: 2, estimatedTotalHits: 4 });
    expect(estimated.hits.map((hit) => hit.id)).toEqual(["2", "3"]);
    const paged = await index.search("", { page: 2, hitsPerPage: 3 });
    expect(paged).toMatchObject({ page: 2, hitsPerPage: 3, totalHits: 4, totalPages: 2 });
    expect(paged.hits.map((hit) => hit.id)).toEqual(["4"]);
    const all = await index.search("linear", { page: 1, hitsPerPage: 10, showRankingScore: true, facets: ["kind"] });
    const threshold = ((all.hits[0]._rankingScore ?? 0) + (all.hits[1]._rankingScore ?? 0)) / 2;
    const above = await index.search("linear", { page: 1, hitsPerPage: 10, rankingScoreThreshold: threshold, facets: ["kind"] });
    expect(above.hits.map((hit) => hit.id)).toEqual(["1"]);
    expect(above.totalHits).toBe(1);
    expect(above.facetDistribution).toEqual({ kind: { note: 1 } });
  });

  it("evaluates filters: comparisons, IN, NOT, OR, parentheses and escaped quoted values", async () => {
    const ids = async (filter: string | (string | string[])[]) => (await client.index("records").search("", { filter })).hits.map((hit) => hit.id);
    expect(await ids('userId = "u1" AND createdAt >= "200" AND createdAt < 400')).toEqual(["2"]);
    expect(await ids("kind IN [note, course] AND NOT userId = u2")).toEqual(["1", "4"]);
    expect(await ids('(kind = quiz OR kind = "course") AND userId != "u2"')).toEqual(["2", "4"]);
    expect(await ids(["userId = u1", ["kind = note", "kind = quiz"]])).toEqual(["1", "2"]);
    expect(await ids('kind NOT IN ["note"]')).toEqual(["2", "4"]);
    await client
      .index("records")
      .updateSettings({ filterableAttributes: ["userId", "kind", "createdAt", "title"] })
      .waitTask();
    expect(await ids('title = "Quotes \\"and\\" back\\\\slashes"')).toEqual(["3"]);
    expect(await ids('title = "quotes \\"AND\\" back\\\\slashes"')).toEqual(["3"]);
    await client
      .index("records")
      .updateSettings({ filterableAttributes: ["userId", "kind", "createdAt"] })
      .waitTask();
  });

  it("refuses a bad request body and a bad filter with Meilisearch's error bodies", async () => {
    const index = client.index("records");
    const unknown = await apiError(client.httpRequest.post({ path: "indexes/records/search", body: { q: "x", doggo: 3 } }));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "bad_request", type: "invalid_request", link: "https://docs.meilisearch.com/errors#bad_request" });
    expect((unknown.body as { message: string }).message).toMatch(/^Unknown field `doggo`: expected one of `q`, .*`limit`/);
    expect(await apiError(client.httpRequest.post({ path: "indexes/records/search", body: { limit: "ten" } }))).toEqual({
      status: 400,
      body: {
        message: 'Invalid value type at `.limit`: expected a positive integer, but found a string: `"ten"`',
        code: "invalid_search_limit",
        type: "invalid_request",
        link: "https://docs.meilisearch.com/errors#invalid_search_limit",
      },
    });
    const syntax = await apiError(index.search("", { filter: 'userId = "u1" XOR kind = note' }));
    expect(syntax).toMatchObject({ status: 400, body: { code: "invalid_search_filter", type: "invalid_request" } });
    expect((syntax.body as { message: string }).message).toContain("Found unexpected characters at the end of the filter: `XOR kind = note`");
    const unclosed = await apiError(index.search("", { filter: 'userId = "u1' }));
    expect(unclosed.body).toMatchObject({
      code: "invalid_search_filter",
      message: expect.stringContaining("missing the following closing delimiter"),
    });
    const notFilterable = await apiError(index.search("", { filter: "title = x" }));
    expect(notFilterable.body).toMatchObject({
      code: "invalid_search_filter",
      message: expect.stringContaining("Attribute `title` is not filterable"),
    });
    const settings = await apiError(index.updateSettings({ searchableAttributes: ["title"], typo: true } as never));
    expect(settings.body).toMatchObject({ code: "bad_request", message: expect.stringMatching(/^Unknown field `typo`: expected one of/) });
    expect(await apiError(client.index("missing").search("x"))).toMatchObject({
      status: 404,
      body: { code: "index_not_found", message: "Index `missing` not found." },
    });
  });

  it("refuses wrong types and unknown fields on the other routes too", async () => {
    const index = client.index("records");
    expect(await apiError(index.updateSettings({ searchableAttributes: "title" } as never))).toMatchObject({
      status: 400,
      body: {
        code: "invalid_settings_searchable_attributes",
        message: 'Invalid value type at `.searchableAttributes`: expected an array, but found a string: `"title"`',
      },
    });
    expect(await apiError(index.updateSettings({ typoTolerance: { enabled: true, typos: 1 } } as never))).toMatchObject({
      body: { code: "bad_request", message: expect.stringMatching(/^Unknown field `typos` inside `\.typoTolerance`: expected one of `enabled`/) },
    });
    expect(await apiError(client.httpRequest.post({ path: "indexes", body: { uid: "x", doggo: true } }))).toMatchObject({
      body: { code: "bad_request", message: "Unknown field `doggo`: expected one of `uid`, `primaryKey`" },
    });
    expect(await apiError(client.httpRequest.post({ path: "indexes/records/documents/delete", body: {} }))).toMatchObject({
      body: { code: "missing_document_filter" },
    });
    expect(await apiError(client.httpRequest.post({ path: "indexes/records/documents", params: { primaryKeyy: "id" }, body: [] }))).toMatchObject({
      body: { code: "bad_request", message: expect.stringContaining("Unknown parameter `primaryKeyy`") },
    });
    expect(await apiError(index.search("x", { filter: 'kind = "bad \\q escape"' }))).toMatchObject({ body: { code: "invalid_search_filter" } });
    expect(await apiError(index.search("x", { filter: 'kind = "bad \\q escape"' }))).toMatchObject({
      body: { message: expect.stringContaining("Malformed value") },
    });
    expect(await apiError(index.search("x", { matchingStrategy: "some" } as never))).toMatchObject({
      body: { code: "invalid_search_matching_strategy" },
    });
    expect(await apiError(index.search("x", { rankingScoreThreshold: 1.5 }))).toMatchObject({
      body: { code: "invalid_search_ranking_score_threshold" },
    });
    expect(await apiError(index.search("x", { facets: ["title"] }))).toMatchObject({ body: { code: "invalid_search_facets" } });
    // Known to Meilisearch but not evaluated here: refused rather than ignored.
    expect(await apiError(index.search("x", { sort: ["createdAt:asc"] }))).toMatchObject({
      body: { code: "invalid_search_sort", message: expect.stringContaining("stand-in") },
    });
  });

  it("fails a task whose documents have invalid ids, storing none of them", async () => {
    const task = await client
      .index("records")
      .addDocuments([
        { id: "ok", title: "Fine" },
        { id: "not ok!", title: "Bad id" },
      ])
      .waitTask();
    expect(task.status).toBe("failed");
    expect(task.error).toMatchObject({ code: "invalid_document_id", type: "invalid_request" });
    expect(server.documents("records").map((document) => document.id)).not.toContain("ok");
  });

  it("deletes by id and by filter", async () => {
    await client.createIndex("scratch", { primaryKey: "id" }).waitTask();
    const scratch = client.index("scratch");
    await scratch.updateSettings({ filterableAttributes: ["userId"] }).waitTask();
    await scratch
      .addDocuments([
        { id: "a", userId: "u1", title: "one" },
        { id: "b", userId: "u2", title: "two" },
        { id: "c", userId: "u2", title: "three" },
      ])
      .waitTask();
    await scratch.deleteDocuments(["a"]).waitTask();
    const byFilter = await scratch.deleteDocuments({ filter: 'userId = "u2"' }).waitTask();
    expect(byFilter).toMatchObject({ status: "succeeded", type: "documentDeletion", details: { deletedDocuments: 2 } });
    expect(server.documents("scratch")).toEqual([]);
    expect(await apiError(scratch.deleteDocuments({ filter: "userId = (" }))).toMatchObject({
      status: 400,
      body: { code: "invalid_document_filter" },
    });
  });
});

describe("Meilisearch stand-in tasks", () => {
  it("applies a write only when its task is processed: a client that does not wait does not read it", async () => {
    const server = await startMeilisearchStandIn({ taskDelayMs: 100 });
    try {
      const client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
      await client.createIndex("late", { primaryKey: "id" }).waitTask();
      const enqueued = client.index("late").addDocuments([{ id: "1", title: "Eventually consistent" }]);
      await enqueued;
      expect((await client.index("late").search("eventually")).hits).toEqual([]);
      await enqueued.waitTask();
      expect((await client.index("late").search("eventually")).hits.map((hit) => hit.id)).toEqual(["1"]);
      expect(server.requests.some((request) => request.path.startsWith("/tasks/"))).toBe(true);
    } finally {
      await server.close();
    }
  });
});
