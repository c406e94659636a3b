import { Writable } from "node:stream";
import { createLogger } from "@study/platform";
import { fixedClock } from "@study/platform/clock";
import { appErrorOf, refusal } from "@study/testkit/refusal";
import { GetSearchFilters } from "../../src/application/get-search-filters";
import { GetSuggestions } from "../../src/application/get-suggestions";
import { IndexRecords } from "../../src/application/index-records";
import { RemoveRecords } from "../../src/application/remove-records";
import { Reindex, REMOVAL_MARGIN_MS, type ReindexProgress } from "../../src/application/reindex";
import { Search } from "../../src/application/search";
import { DATE_RANGE_OPTIONS, TYPE_OPTIONS } from "../../src/domain/search-filters";
import type { SearchRecord } from "../../src/domain/search-record";
import { InMemoryIndexLedger, TX, type InMemoryTx } from "./in-memory-index-ledger";
import { InMemorySearchableSources } from "./in-memory-searchable-sources";
import { InMemorySearchIndex } from "./in-memory-search-index";

const ALICE = "user-alice";
const BOB = "user-bob";
const T0 = new Date("2025-03-01T10:00:00.000Z");
const later = (ms: number) => new Date(T0.getTime() + ms);

function record(overrides: Partial<SearchRecord> & Pick<SearchRecord, "id">): SearchRecord {
  return {
    type: "note",
    userId: ALICE,
    title: "Photosynthesis lecture",
    keywords: [],
    description: "",
    content: "",
    metadata: {},
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  };
}

/** A logger whose JSON lines the test can read (to see that a failure's cause is logged). */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger("search-test", "error", destination), lines };
}

function setUp() {
  const index = new InMemorySearchIndex();
  const ledger = new InMemoryIndexLedger();
  const { logger, lines } = capturingLogger();
  let tick = 0;
  return {
    index,
    ledger,
    lines,
    indexRecords: new IndexRecords<InMemoryTx>(ledger, index),
    removeRecords: new RemoveRecords<InMemoryTx>(ledger, index),
    // Each stopwatch reading is 7 ms after the previous one.
    search: new Search(index, ledger, logger, () => (tick += 7)),
    getSearchFilters: new GetSearchFilters(ledger, logger),
    getSuggestions: new GetSuggestions(index, logger),
  };
}

describe("IndexRecords", () => {
  it("indexes a new record and records its version in the ledger", async () => {
    const { index, ledger, indexRecords } = setUp();
    expect(await indexRecords.execute(record({ id: "n1", courseId: "c1" }), TX)).toEqual({ applied: 1, skipped: 0 });
    expect(index.get({ type: "note", id: "n1" })).toMatchObject({ title: "Photosynthesis lecture", courseId: "c1" });
    expect(ledger.entry({ type: "note", id: "n1" })).toMatchObject({ userId: ALICE, courseId: "c1", updatedAt: T0, deletedAt: null });
  });

  it("applies a newer version and an equal one again, and ignores an older one", async () => {
    const { index, indexRecords } = setUp();
    await indexRecords.execute(record({ id: "n1", title: "Version 2", updatedAt: later(2_000) }), TX);
    expect(await indexRecords.execute(record({ id: "n1", title: "Version 1", updatedAt: later(1_000) }), TX)).toEqual({ applied: 0, skipped: 1 });
    expect(index.get({ type: "note", id: "n1" })?.title).toBe("Version 2");
    expect(await indexRecords.execute(record({ id: "n1", title: "Version 3", updatedAt: later(3_000) }), TX)).toEqual({ applied: 1, skipped: 0 });
    expect(await indexRecords.execute(record({ id: "n1", title: "Version 3", updatedAt: later(3_000) }), TX)).toEqual({ applied: 1, skipped: 0 });
    expect(index.get({ type: "note", id: "n1" })?.title).toBe("Version 3");
  });

  it("keys records by type and id: a quiz and a note with the same id are two records", async () => {
    const { index, indexRecords } = setUp();
    await indexRecords.execute(record({ id: "same" }), TX);
    await indexRecords.execute(record({ id: "same", type: "quiz", title: "Quiz" }), TX);
    expect(index.all().map((r) => `${r.type}:${r.id}`)).toEqual(["note:same", "quiz:same"]);
  });

  it("names a course for results and filters, and renames it with a newer version", async () => {
    const { ledger, indexRecords } = setUp();
    await indexRecords.execute(record({ id: "c1", type: "course", courseId: "c1", title: "Biology", metadata: { semester: "Fall 2025" } }), TX);
    expect(await ledger.listCourses(ALICE)).toEqual([{ id: "c1", name: "Biology", semester: "Fall 2025" }]);
    await indexRecords.execute(record({ id: "c1", type: "course", courseId: "c1", title: "Biology II", updatedAt: later(1) }), TX);
    expect(await ledger.listCourses(ALICE)).toEqual([{ id: "c1", name: "Biology II", semester: null }]);
  });

  it("lets a ledger or index failure through, so that the consumer retries the event", async () => {
    const { index, ledger, indexRecords } = setUp();
    index.failure = new Error("index down");
    await expect(indexRecords.execute(record({ id: "n1" }), TX)).rejects.toThrow("index down");
    index.failure = undefined;
    ledger.failure = new Error("database down");
    await expect(indexRecords.execute(record({ id: "n2" }), TX)).rejects.toThrow("database down");
  });
});

describe("RemoveRecords", () => {
  it("removes a deleted record from the index and tombstones it: a later update or a redelivered create stays out", async () => {
    const { index, ledger, indexRecords, removeRecords } = setUp();
    await indexRecords.execute(record({ id: "n1" }), TX);
    expect(await removeRecords.execute({ type: "note", id: "n1", userId: ALICE }, later(5), TX)).toBe(true);
    expect(index.has({ type: "note", id: "n1" })).toBe(false);
    expect(ledger.entry({ type: "note", id: "n1" })?.deletedAt).toEqual(later(5));
    expect(await indexRecords.execute(record({ id: "n1", updatedAt: later(10) }), TX)).toEqual({ applied: 0, skipped: 1 });
    expect(index.has({ type: "note", id: "n1" })).toBe(false);
    expect(await removeRecords.execute({ type: "note", id: "n1", userId: ALICE }, later(20), TX)).toBe(false);
    expect(ledger.entry({ type: "note", id: "n1" })?.deletedAt).toEqual(later(5));
  });

  it("keeps a delete that arrives before its create final", async () => {
    const { index, indexRecords, removeRecords } = setUp();
    await removeRecords.execute({ type: "quiz", id: "q1", userId: ALICE, courseId: "c1" }, T0, TX);
    expect(await indexRecords.execute(record({ id: "q1", type: "quiz" }), TX)).toEqual({ applied: 0, skipped: 1 });
    expect(index.all()).toEqual([]);
  });

  it("a deleted course takes its name and every record of it with it, tombstoned; other courses and users stay", async () => {
    const { index, ledger, indexRecords, removeRecords } = setUp();
    await indexRecords.execute(record({ id: "c1", type: "course", courseId: "c1", title: "Biology" }), TX);
    await indexRecords.execute(record({ id: "n1", courseId: "c1" }), TX);
    await indexRecords.execute(record({ id: "f1", type: "flashcard_set", courseId: "c1" }), TX);
    await indexRecords.execute(record({ id: "n2", courseId: "c2" }), TX);
    await indexRecords.execute(record({ id: "n3", courseId: "c1", userId: BOB }), TX);

    const removed = await removeRecords.courseDeleted(ALICE, "c1", later(1), TX);
    expect(removed.map((key) => `${key.type}:${key.id}`).sort()).toEqual(["course:c1", "flashcard_set:f1", "note:n1"]);
    expect(index.all().map((r) => r.id)).toEqual(["n2", "n3"]);
    expect(await ledger.listCourses(ALICE)).toEqual([]);
    expect(await indexRecords.execute(record({ id: "n1", courseId: "c1", updatedAt: later(2) }), TX)).toEqual({ applied: 0, skipped: 1 });
    // The notes' own delete events, published by media afterwards, find them tombstoned.
    expect(await removeRecords.execute({ type: "note", id: "n1", userId: ALICE }, later(3), TX)).toBe(false);
  });

  it("a calendar event outlives its deleted course: it stays indexed, and the calendar's detaching update applies", async () => {
    const { index, ledger, indexRecords, removeRecords } = setUp();
    await indexRecords.execute(record({ id: "c1", type: "course", courseId: "c1", title: "Biology" }), TX);
    await indexRecords.execute(record({ id: "e1", type: "calendar_event", courseId: "c1", title: "Biology exam" }), TX);

    expect(await removeRecords.courseDeleted(ALICE, "c1", later(1), TX)).toEqual([{ type: "course", id: "c1" }]);
    expect(index.all().map((r) => `${r.type}:${r.id}`)).toEqual(["calendar_event:e1"]);
    expect(ledger.entry({ type: "calendar_event", id: "e1" })?.deletedAt).toBeNull();
    expect(await indexRecords.execute(record({ id: "e1", type: "calendar_event", title: "Biology exam", updatedAt: later(2) }), TX)).toEqual({
      applied: 1,
      skipped: 0,
    });
    expect(index.get({ type: "calendar_event", id: "e1" })?.courseId).toBeUndefined();
  });

  it("a course deleted before search heard of it is tombstoned too", async () => {
    const { index, indexRecords, removeRecords } = setUp();
    expect(await removeRecords.courseDeleted(ALICE, "c9", T0, TX)).toEqual([{ type: "course", id: "c9" }]);
    await indexRecords.execute(record({ id: "c9", type: "course", courseId: "c9", title: "Late" }), TX);
    expect(index.all()).toEqual([]);
  });
});

describe("Search", () => {
  async function indexed() {
    const context = setUp();
    const { indexRecords } = context;
    await indexRecords.execute(record({ id: "c1", type: "course", courseId: "c1", title: "Biology", metadata: { semester: "Fall" } }), TX);
    await indexRecords.execute(record({ id: "n1", courseId: "c1", title: "Photosynthesis lecture", status: "COMPLETED" }), TX);
    await indexRecords.execute(record({ id: "n2", title: "Cell biology", content: "photosynthesis in plants", createdAt: later(86_400_000) }), TX);
    await indexRecords.execute(record({ id: "q1", type: "quiz", courseId: "c-of-bob", title: "Photosynthesis quiz", difficulty: "HARD" }), TX);
    await indexRecords.execute(record({ id: "b1", userId: BOB, courseId: "c1", title: "Photosynthesis (Bob)" }), TX);
    return context;
  }

  it("answers the user's matches with course names, counts per type, suggestions, pagination and the time taken", async () => {
    const { search } = await indexed();
    const answer = await search.execute(ALICE, { query: "photosynthesis" });
    expect(answer.results.map((r) => [r.record.id, r.relevanceScore, r.courseName])).toEqual([
      ["n1", 1, "Biology"],
      ["q1", 1, undefined],
      ["n2", 0.5, undefined],
    ]);
    expect(answer).toMatchObject({
      totalCount: 3,
      resultsByType: { note: 2, quiz: 1 },
      suggestions: ["Photosynthesis lecture", "Photosynthesis quiz"],
      pagination: { limit: 50, offset: 0, hasMore: false },
      query: { text: "photosynthesis", minRelevance: 0.1 },
      searchTime: 7,
    });
  });

  it("passes the filters to the index and pages with hasMore", async () => {
    const { search } = await indexed();
    expect((await search.execute(ALICE, { query: "photosynthesis", types: "quiz", difficulty: "HARD" })).results.map((r) => r.record.id)).toEqual([
      "q1",
    ]);
    expect((await search.execute(ALICE, { query: "photosynthesis", courseId: "c1" })).results.map((r) => r.record.id)).toEqual(["n1"]);
    expect((await search.execute(ALICE, { query: "photosynthesis", status: "COMPLETED" })).results.map((r) => r.record.id)).toEqual(["n1"]);
    expect((await search.execute(ALICE, { query: "photosynthesis", minRelevance: "0.9" })).totalCount).toBe(2);
    expect((await search.execute(ALICE, { query: "photosynthesis", startDate: "2025-03-02" })).results.map((r) => r.record.id)).toEqual(["n2"]);
    expect((await search.execute(ALICE, { query: "photosynthesis", endDate: "2025-03-01" })).totalCount).toBe(2);
    const first = await search.execute(ALICE, { query: "photosynthesis", limit: "2" });
    expect(first.pagination).toEqual({ limit: 2, offset: 0, hasMore: true });
    const second = await search.execute(ALICE, { query: "photosynthesis", limit: "2", offset: "2" });
    expect(second.results.map((r) => r.record.id)).toEqual(["n2"]);
    expect(second.pagination).toEqual({ limit: 2, offset: 2, hasMore: false });
  });

  it("never shows, counts or suggests another user's records, nor names another user's course", async () => {
    const { search } = await indexed();
    const bob = await search.execute(BOB, { query: "photosynthesis" });
    expect(bob.results.map((r) => [r.record.id, r.courseName])).toEqual([["b1", undefined]]);
    expect(bob).toMatchObject({ totalCount: 1, resultsByType: { note: 1 }, suggestions: ["Photosynthesis (Bob)"] });
    expect((await search.execute("user-nobody", { query: "photosynthesis" })).totalCount).toBe(0);
  });

  it("refuses a bad query with the parser's code before asking the index", async () => {
    const { index, search } = await indexed();
    index.failure = new Error("must not be called");
    expect(await refusal(() => search.execute(ALICE, { query: "x", limit: "0" }))).toMatchObject({ code: "INVALID_LIMIT" });
    expect(await refusal(() => search.execute("", { query: "x" }))).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("turns an index or database failure into SEARCH_FAILED (internal), logging the cause", async () => {
    const { index, ledger, search, lines } = await indexed();
    index.failure = new Error("connection refused at 10.0.0.7");
    const error = await appErrorOf(search.execute(ALICE, { query: "photosynthesis" }));
    expect({ kind: error.kind, code: error.code, message: error.message }).toEqual({
      kind: "internal",
      code: "SEARCH_FAILED",
      message: "Search failed",
    });
    expect(lines).toEqual([
      expect.objectContaining({
        msg: "Search failed",
        code: "SEARCH_FAILED",
        err: expect.objectContaining({ message: "connection refused at 10.0.0.7" }),
      }),
    ]);
    index.failure = undefined;
    ledger.failure = new Error("database down");
    expect(await refusal(() => search.execute(ALICE, { query: "photosynthesis" }))).toMatchObject({ kind: "internal", code: "SEARCH_FAILED" });
  });
});

describe("GetSearchFilters", () => {
  it("lists the fixed choices and the user's own courses with their semester", async () => {
    const { indexRecords, getSearchFilters } = setUp();
    await indexRecords.execute(record({ id: "c2", type: "course", courseId: "c2", title: "Chemistry" }), TX);
    await indexRecords.execute(record({ id: "c1", type: "course", courseId: "c1", title: "Biology", metadata: { semester: "Fall 2025" } }), TX);
    await indexRecords.execute(record({ id: "c3", type: "course", courseId: "c3", title: "Bob's course", userId: BOB }), TX);
    const filters = await getSearchFilters.execute(ALICE);
    expect(filters.courses).toEqual([
      { value: "c1", label: "Biology", semester: "Fall 2025" },
      { value: "c2", label: "Chemistry" },
    ]);
    expect(filters.types.map((t) => t.value)).toEqual([
      "note",
      "flashcard_set",
      "study_guide",
      "quiz",
      "course",
      "document",
      "calendar_event",
      "chat_session",
    ]);
    expect(filters.types.find((t) => t.value === "chat_session")).toEqual({ value: "chat_session", label: "Chat sessions", icon: "messages-square" });
    expect(filters.types).toBe(TYPE_OPTIONS);
    expect(filters.difficulty.map((d) => d.value)).toEqual(["EASY", "MEDIUM", "HARD"]);
    expect(filters.status.map((s) => s.value)).toEqual(["COMPLETED", "PROCESSING", "FAILED"]);
    expect(filters.dateRanges).toBe(DATE_RANGE_OPTIONS);
    expect(filters.dateRanges.map((d) => d.value)).toEqual(["today", "week", "month", "semester", "custom"]);
    for (const option of [...filters.difficulty, ...filters.status]) expect(option.color).toMatch(/^#[0-9a-f]{6}$/);
  });

  it("turns a database failure into FILTERS_FAILED", async () => {
    const { ledger, getSearchFilters, lines } = setUp();
    ledger.failure = new Error("database down");
    expect(await refusal(() => getSearchFilters.execute(ALICE))).toEqual({ kind: "internal", code: "FILTERS_FAILED", details: [] });
    expect(lines).toHaveLength(1);
  });
});

describe("GetSuggestions", () => {
  it("suggests the user's own titles for a prefix", async () => {
    const { indexRecords, getSuggestions } = setUp();
    await indexRecords.execute(record({ id: "n1", title: "Photosynthesis lecture" }), TX);
    await indexRecords.execute(record({ id: "n2", title: "Photons", userId: BOB }), TX);
    expect(await getSuggestions.execute(ALICE, " pho ")).toEqual(["Photosynthesis lecture"]);
    expect(await getSuggestions.execute(BOB, "pho")).toEqual(["Photons"]);
  });

  it("refuses under 2 characters with QUERY_TOO_SHORT and over 100 with VALIDATION_ERROR", async () => {
    const { getSuggestions } = setUp();
    expect(await refusal(() => getSuggestions.execute(ALICE, "p"))).toMatchObject({ code: "QUERY_TOO_SHORT" });
    expect(await refusal(() => getSuggestions.execute(ALICE, undefined))).toMatchObject({ code: "QUERY_TOO_SHORT" });
    expect(await refusal(() => getSuggestions.execute(ALICE, "p".repeat(101)))).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("turns an index failure into SUGGESTIONS_FAILED", async () => {
    const { index, getSuggestions } = setUp();
    index.failure = new Error("index down");
    expect(await refusal(() => getSuggestions.execute(ALICE, "ph"))).toEqual({ kind: "internal", code: "SUGGESTIONS_FAILED", details: [] });
  });
});

describe("Reindex", () => {
  function reindexSetUp(sourceRecords: { courses?: SearchRecord[]; media?: SearchRecord[]; study?: SearchRecord[] }) {
    const context = setUp();
    const clock = fixedClock(later(3_600_000));
    const sources = new InMemorySearchableSources({
      courses: { types: ["course"], records: sourceRecords.courses ?? [] },
      media: { types: ["note"], records: sourceRecords.media ?? [] },
      study: { types: ["flashcard_set", "quiz", "study_guide"], records: sourceRecords.study ?? [] },
    });
    // Each page of a source takes a second.
    sources.onList = () => clock.advance(1_000);
    const progress: ReindexProgress[] = [];
    const reindex = new Reindex<InMemoryTx>(context.ledger, context.index, sources, clock, 2);
    return { ...context, clock, sources, progress, run: (userId?: string) => reindex.execute({ userId }, (p) => progress.push(p)) };
  }

  it("pages through every source, indexes what is new or newer, and reports progress per page", async () => {
    const notes = [record({ id: "n1" }), record({ id: "n2" }), record({ id: "n3", userId: BOB })];
    const context = reindexSetUp({
      courses: [record({ id: "c1", type: "course", courseId: "c1", title: "Biology" })],
      media: notes,
      study: [record({ id: "q1", type: "quiz" })],
    });
    await context.indexRecords.execute(record({ id: "n2", title: "Newer than the source", updatedAt: later(5) }), TX);
    const report = await context.run();
    expect(report).toEqual({
      sources: [
        { source: "courses", listed: 1, applied: 1, skipped: 0 },
        { source: "media", listed: 3, applied: 2, skipped: 1 },
        { source: "study", listed: 1, applied: 1, skipped: 0 },
      ],
      listed: 5,
      applied: 4,
      skipped: 1,
      removed: 0,
      elapsedMs: 4_000,
    });
    expect(context.index.all().map((r) => `${r.type}:${r.id}`)).toEqual(["course:c1", "note:n1", "note:n2", "note:n3", "quiz:q1"]);
    expect(context.index.get({ type: "note", id: "n2" })?.title).toBe("Newer than the source");
    expect(await context.ledger.listCourses(ALICE)).toEqual([{ id: "c1", name: "Biology", semester: null }]);
    // Elapsed since the start, and since the source's first page (its rate).
    expect(context.progress.map((p) => [p.source, p.listed, p.done, p.elapsedMs, p.sourceElapsedMs])).toEqual([
      ["courses", 1, true, 1_000, 1_000],
      ["media", 2, false, 2_000, 1_000],
      ["media", 3, true, 3_000, 2_000],
      ["study", 1, true, 4_000, 1_000],
    ]);
    expect(context.sources.calls.filter((c) => c.source === "media").map((c) => c.pageToken)).toEqual([undefined, "2"]);
  });

  it("removes from the index and the ledger what the sources no longer list, except entries newer than the reindex's start", async () => {
    const context = reindexSetUp({ media: [record({ id: "n1" })] });
    await context.indexRecords.execute(record({ id: "n1" }), TX);
    await context.indexRecords.execute(record({ id: "gone" }), TX);
    await context.indexRecords.execute(record({ id: "c-gone", type: "course", courseId: "c-gone", title: "Old course" }), TX);
    // Created while the reindex ran (after its start, less the margin): not taken for gone.
    const fresh = record({ id: "fresh", updatedAt: new Date(context.clock.now().getTime() - REMOVAL_MARGIN_MS + 1) });
    await context.indexRecords.execute(fresh, TX);
    // A type no source serves is left alone.
    await context.indexRecords.execute(record({ id: "d1", type: "document" }), TX);

    const report = await context.run();
    expect(report.removed).toBe(2);
    expect(context.index.all().map((r) => r.id)).toEqual(["d1", "fresh", "n1"]);
    expect(context.ledger.entry({ type: "note", id: "gone" })).toBeUndefined();
    expect(await context.ledger.listCourses(ALICE)).toEqual([]);
  });

  it("keeps tombstones: a record deleted in search but still listed stays out", async () => {
    const context = reindexSetUp({ media: [record({ id: "n1" })] });
    await context.removeRecords.execute({ type: "note", id: "n1", userId: ALICE }, T0, TX);
    expect(await context.run()).toMatchObject({ applied: 0, skipped: 1, removed: 0 });
    expect(context.index.all()).toEqual([]);
  });

  it("rebuilds one user's records only, asking the sources for that user", async () => {
    const context = reindexSetUp({ media: [record({ id: "n1" }), record({ id: "b1", userId: BOB })] });
    await context.indexRecords.execute(record({ id: "b-gone", userId: BOB }), TX);
    await context.indexRecords.execute(record({ id: "a-gone" }), TX);
    expect(await context.run(ALICE)).toMatchObject({ listed: 1, applied: 1, removed: 1 });
    expect(context.index.all().map((r) => r.id)).toEqual(["b-gone", "n1"]);
    expect(new Set(context.sources.calls.map((c) => c.userId))).toEqual(new Set([ALICE]));
  });

  it("stops without removing anything when a source fails", async () => {
    const context = reindexSetUp({ media: [record({ id: "n1" })] });
    await context.indexRecords.execute(record({ id: "q-old", type: "quiz" }), TX);
    context.sources.failing = "study";
    await expect(context.run()).rejects.toThrow("study is unavailable");
    expect(context.index.has({ type: "quiz", id: "q-old" })).toBe(true);
  });
});
