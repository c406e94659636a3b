/**
 * The behaviour every SearchIndex adapter must have, as one describe block that each adapter's test file runs
 * (`searchIndexContract("embedded", open)`). Every test works on users of its own (fresh UUIDs), so an adapter may
 * keep one index for the whole suite; every search also goes through `searchAs`, which checks what must hold of
 * any answer: only the user's own records, relevance within 0-1 in descending order, byType summing to total.
 *
 * Semantics fixed here (both adapters): every word of a query must match (in any field); the last word also
 * matches as a prefix; a word of five letters or more also matches with one typo; a query without any word
 * (only punctuation, operators, emoji) finds nothing; snippets are HTML in which only `<mark>` is markup.
 */
import { randomUUID } from "node:crypto";
import type { IndexPage, IndexQuery, SearchIndex } from "../../src/application/ports/search-index.port";
import { RECORD_TYPES, type RecordType, type SearchRecord } from "../../src/domain/search-record";

export interface OpenedIndex {
  index: SearchIndex;
  close(): Promise<void>;
}

const at = (iso: string) => new Date(iso);

/** A record of `userId` with neutral defaults; the fields given override them. */
export function aRecord(userId: string, fields: Partial<SearchRecord> & Pick<SearchRecord, "title">): SearchRecord {
  const createdAt = fields.createdAt ?? at("2026-03-02T10:00:00.000Z");
  return {
    type: "note",
    id: randomUUID(),
    userId,
    keywords: [],
    description: "",
    content: "",
    metadata: {},
    createdAt,
    updatedAt: createdAt,
    ...fields,
  };
}

export const aQuery = (userId: string, text: string, options: Partial<Omit<IndexQuery, "userId" | "text">> = {}): IndexQuery => ({
  userId,
  text,
  minRelevance: 0,
  limit: 50,
  offset: 0,
  ...options,
});

export const idsOf = (page: IndexPage) => page.hits.map((hit) => hit.record.id);
const sortedIds = (page: IndexPage) => idsOf(page).sort();
const idList = (...records: SearchRecord[]) => records.map((record) => record.id).sort();

/** Long filler text without any of the words the tests look for. */
function filler(words: number, seed = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"): string {
  const vocabulary = seed.split(" ");
  return Array.from({ length: words }, (_, i) => vocabulary[i % vocabulary.length]).join(" ");
}

/** What any answer must satisfy, whatever the query. */
export function expectWellFormed(page: IndexPage, userId: string, limit: number): void {
  expect(page.hits.length).toBeLessThanOrEqual(limit);
  expect(page.total).toBeGreaterThanOrEqual(page.hits.length);
  const counted = Object.values(page.byType).reduce((sum, count) => sum + (count ?? 0), 0);
  expect(counted).toBe(page.total);
  for (const count of Object.values(page.byType)) expect(count).toBeGreaterThan(0);
  for (const [i, hit] of page.hits.entries()) {
    expect(hit.record.userId).toBe(userId);
    expect(hit.relevanceScore).toBeGreaterThanOrEqual(0);
    expect(hit.relevanceScore).toBeLessThanOrEqual(1);
    if (i > 0) expect(hit.relevanceScore).toBeLessThanOrEqual(page.hits[i - 1].relevanceScore);
    expect(typeof hit.snippet).toBe("string");
    expect(Array.isArray(hit.highlights)).toBe(true);
  }
}

export function searchIndexContract(adapterName: string, open: () => Promise<OpenedIndex>): void {
  describe(`SearchIndex contract: ${adapterName}`, () => {
    let opened: OpenedIndex;
    const index = () => opened.index;

    beforeAll(async () => {
      opened = await open();
    });

    afterAll(async () => {
      await opened.close();
    });

    const newUser = () => randomUUID();

    async function searchAs(query: IndexQuery): Promise<IndexPage> {
      const page = await index().search(query);
      expectWellFormed(page, query.userId, query.limit);
      return page;
    }

    const search = (userId: string, text: string, options: Partial<Omit<IndexQuery, "userId" | "text">> = {}) =>
      searchAs(aQuery(userId, text, options));

    describe("matching", () => {
      it("finds a record by a word of its title, its keywords, its description or its content", async () => {
        const user = newUser();
        const byTitle = aRecord(user, { title: "Glycolysis pathways" });
        const byKeywords = aRecord(user, { type: "course", title: "Week three", keywords: ["BIO201", "Professor Okonkwo"] });
        const byDescription = aRecord(user, { title: "Lab notes", description: "Measuring enzyme kinetics with spectrophotometry" });
        const byContent = aRecord(user, { title: "Lecture recording", content: `${filler(60)} the ribosome assembles proteins ${filler(60)}` });
        await index().upsert([byTitle, byKeywords, byDescription, byContent]);

        expect(idsOf(await search(user, "glycolysis"))).toEqual([byTitle.id]);
        expect(idsOf(await search(user, "okonkwo"))).toEqual([byKeywords.id]);
        expect(idsOf(await search(user, "BIO201"))).toEqual([byKeywords.id]);
        expect(idsOf(await search(user, "spectrophotometry"))).toEqual([byDescription.id]);
        expect(idsOf(await search(user, "ribosome"))).toEqual([byContent.id]);
        expect((await search(user, "ribosome")).total).toBe(1);
      });

      it("returns the record as it was upserted", async () => {
        const user = newUser();
        const full = aRecord(user, {
          type: "flashcard_set",
          courseId: randomUUID(),
          title: "Organic chemistry flashcards",
          keywords: ["CHEM210"],
          description: "Functional groups",
          content: "alkene — C=C double bond\nalcohol — OH group",
          difficulty: "MEDIUM",
          status: "COMPLETED",
          metadata: { cardCount: "2", color: "#22c55e" },
          createdAt: at("2026-02-03T04:05:06.789Z"),
          updatedAt: at("2026-02-04T05:06:07.891Z"),
        });
        const bare = aRecord(user, { type: "course", title: "Organic chemistry" });
        await index().upsert([full, bare]);

        const page = await search(user, "organic chemistry");
        const byId = new Map(page.hits.map((hit) => [hit.record.id, hit.record]));
        expect(byId.get(full.id)).toEqual(full);
        expect(byId.get(bare.id)).toEqual(bare);
        expect(byId.get(bare.id)?.courseId).toBeUndefined();
        expect(byId.get(bare.id)?.difficulty).toBeUndefined();
        expect(byId.get(bare.id)?.status).toBeUndefined();
      });

      it("ranks a title match above keyword, description and content matches", async () => {
        const user = newUser();
        const inContent = aRecord(user, { title: "Lecture four", content: `${filler(40)} mitochondria produce energy ${filler(40)}` });
        const inDescription = aRecord(user, { title: "Reading list", description: "Chapters on mitochondria" });
        const inKeywords = aRecord(user, { type: "course", title: "Cell biology", keywords: ["mitochondria", "BIO101"] });
        const inTitle = aRecord(user, { title: "Mitochondria" });
        await index().upsert([inContent, inDescription, inKeywords, inTitle]);

        const page = await search(user, "mitochondria");
        expect(sortedIds(page)).toEqual(idList(inContent, inDescription, inKeywords, inTitle));
        expect(idsOf(page)[0]).toBe(inTitle.id);
        expect(idsOf(page)[3]).toBe(inContent.id);
        expect(page.hits[0].relevanceScore).toBeGreaterThan(page.hits[3].relevanceScore);
      });

      it("matches the last word as a prefix while the user types", async () => {
        const user = newUser();
        const photosynthesis = aRecord(user, { title: "Photosynthesis in plants" });
        const division = aRecord(user, { title: "Cell division", description: "Mitosis phases" });
        const other = aRecord(user, { title: "Quantum mechanics" });
        await index().upsert([photosynthesis, division, other]);

        expect(idsOf(await search(user, "photosyn"))).toEqual([photosynthesis.id]);
        expect(idsOf(await search(user, "Photo"))).toEqual([photosynthesis.id]);
        expect(idsOf(await search(user, "cell divi"))).toEqual([division.id]);
        expect(idsOf(await search(user, "mito"))).toEqual([division.id]);
      });

      it("tolerates a one-letter typo in a word of five letters or more", async () => {
        const user = newUser();
        const photosynthesis = aRecord(user, { title: "Photosynthesis in plants" });
        const division = aRecord(user, { title: "Cell division", description: "Mitosis phases" });
        const other = aRecord(user, { title: "Quantum mechanics" });
        await index().upsert([photosynthesis, division, other]);

        expect(idsOf(await search(user, "photosinthesis"))).toEqual([photosynthesis.id]); // substitution
        expect(idsOf(await search(user, "photosyntesis"))).toEqual([photosynthesis.id]); // omission
        expect(idsOf(await search(user, "mitosys phases"))).toEqual([division.id]); // not the last word
        expect(idsOf(await search(user, "cell divison"))).toEqual([division.id]); // the last word, also a prefix
        expect(idsOf(await search(user, "quantum mechanicks"))).toEqual([other.id]); // insertion
      });

      it("requires every word of a multi-word query, in any field and any order", async () => {
        const user = newUser();
        const leaf = aRecord(user, { title: "Photosynthesis in plants", content: "The light reactions happen in the thylakoid membrane." });
        const walls = aRecord(user, { title: "Plant cells", description: "Cell walls made of cellulose" });
        const optics = aRecord(user, { title: "Light waves", description: "Optics basics" });
        await index().upsert([leaf, walls, optics]);

        expect(idsOf(await search(user, "photosynthesis thylakoid"))).toEqual([leaf.id]);
        expect(idsOf(await search(user, "thylakoid photosynthesis"))).toEqual([leaf.id]);
        expect(idsOf(await search(user, "light photosynthesis"))).toEqual([leaf.id]);
        expect(idsOf(await search(user, "light optics"))).toEqual([optics.id]);
        expect(idsOf(await search(user, "cellulose walls"))).toEqual([walls.id]);
        expect(await search(user, "photosynthesis optics")).toEqual({ hits: [], total: 0, byType: {} });
      });

      it("finds words with accents and other scripts", async () => {
        const user = newUser();
        const french = aRecord(user, { title: "Café crème notes", content: "Ünïcödé über naïve résumé" });
        const japanese = aRecord(user, { title: "日本語 ノート", description: "Grammar" });
        await index().upsert([french, japanese]);

        expect(idsOf(await search(user, "café"))).toEqual([french.id]);
        expect(idsOf(await search(user, "CAFÉ CRÈME"))).toEqual([french.id]);
        expect(idsOf(await search(user, "résumé"))).toEqual([french.id]);
        expect(idsOf(await search(user, "日本語"))).toEqual([japanese.id]);
      });
    });

    describe("filters", () => {
      const courseOne = randomUUID();
      const courseTwo = randomUUID();
      const user = newUser();
      const records = {
        f1: aRecord(user, {
          type: "note",
          courseId: courseOne,
          title: "Revision one",
          status: "COMPLETED",
          createdAt: at("2026-01-10T12:00:00.000Z"),
        }),
        f2: aRecord(user, {
          type: "note",
          courseId: courseTwo,
          title: "Revision two",
          status: "PROCESSING",
          createdAt: at("2026-02-15T12:00:00.000Z"),
        }),
        f3: aRecord(user, {
          type: "flashcard_set",
          courseId: courseOne,
          title: "Revision three",
          difficulty: "EASY",
          createdAt: at("2026-02-01T00:00:00.000Z"),
        }),
        f4: aRecord(user, {
          type: "quiz",
          courseId: courseTwo,
          title: "Revision four",
          difficulty: "HARD",
          createdAt: at("2026-03-01T00:00:00.000Z"),
        }),
        f5: aRecord(user, { type: "study_guide", title: "Revision five", difficulty: "MEDIUM", createdAt: at("2026-03-20T12:00:00.000Z") }),
        f6: aRecord(user, {
          type: "course",
          id: courseOne,
          courseId: courseOne,
          title: "Revision course",
          createdAt: at("2025-12-01T12:00:00.000Z"),
        }),
        f7: aRecord(user, {
          type: "note",
          courseId: courseOne,
          title: "Revision seven",
          status: "FAILED",
          createdAt: at("2026-02-28T23:59:59.999Z"),
        }),
      };
      const { f1, f2, f3, f4, f5, f6, f7 } = records;
      const from = at("2026-02-01T00:00:00.000Z");
      const before = at("2026-03-01T00:00:00.000Z");

      beforeAll(async () => {
        await index().upsert(Object.values(records));
      });

      const cases: [string, Partial<IndexQuery>, SearchRecord[]][] = [
        ["no filter", {}, [f1, f2, f3, f4, f5, f6, f7]],
        ["one type", { types: ["note"] }, [f1, f2, f7]],
        ["two types", { types: ["flashcard_set", "quiz"] }, [f3, f4]],
        ["a type without records", { types: ["calendar_event"] }, []],
        ["courseId", { courseId: courseOne }, [f1, f3, f6, f7]],
        ["an unknown courseId", { courseId: randomUUID() }, []],
        ["createdFrom (inclusive)", { createdFrom: from }, [f2, f3, f4, f5, f7]],
        ["createdBefore (exclusive)", { createdBefore: before }, [f1, f2, f3, f6, f7]],
        ["a creation range", { createdFrom: from, createdBefore: before }, [f2, f3, f7]],
        ["difficulty", { difficulty: ["EASY", "HARD"] }, [f3, f4]],
        ["one status", { status: ["PROCESSING"] }, [f2]],
        ["two statuses", { status: ["COMPLETED", "FAILED"] }, [f1, f7]],
        [
          "types, course and range",
          { types: ["note", "flashcard_set"], courseId: courseOne, createdFrom: at("2026-01-01T00:00:00.000Z") },
          [f1, f3, f7],
        ],
        ["course and difficulty", { courseId: courseTwo, difficulty: ["HARD"] }, [f4]],
        ["type and status and range", { types: ["note"], status: ["COMPLETED", "PROCESSING"], createdBefore: at("2026-02-01T00:00:00.000Z") }, [f1]],
        ["filters that exclude each other", { types: ["course"], difficulty: ["EASY"] }, []],
        [
          "everything at once",
          { types: ["quiz"], courseId: courseTwo, createdFrom: from, createdBefore: at("2026-03-02T00:00:00.000Z"), difficulty: ["HARD"] },
          [f4],
        ],
      ];

      it.each(cases)("%s", async (_name, filters, expected) => {
        const page = await search(user, "revision", filters);
        expect(sortedIds(page)).toEqual(idList(...expected));
        expect(page.total).toBe(expected.length);
        const byType: Partial<Record<RecordType, number>> = {};
        for (const record of expected) byType[record.type] = (byType[record.type] ?? 0) + 1;
        expect(page.byType).toEqual(byType);
      });
    });

    describe("relevance, counts and paging", () => {
      it("leaves out hits under minRelevance, and counts only those that pass", async () => {
        const user = newUser();
        const strongNote = aRecord(user, { type: "note", title: "Enzymes" });
        const strongQuiz = aRecord(user, { type: "quiz", title: "Enzymes quiz" });
        const weak = aRecord(user, { type: "flashcard_set", title: "Assorted cards", content: `${filler(300)} enzymes ${filler(300)}` });
        await index().upsert([strongNote, strongQuiz, weak]);

        const all = await search(user, "enzymes", { minRelevance: 0 });
        expect(sortedIds(all)).toEqual(idList(strongNote, strongQuiz, weak));
        const scoreOf = (id: string) => all.hits.find((hit) => hit.record.id === id)?.relevanceScore ?? Number.NaN;
        const weakest = scoreOf(weak.id);
        const strongest = Math.min(scoreOf(strongNote.id), scoreOf(strongQuiz.id));
        expect(weakest).toBeLessThan(strongest);

        const threshold = (weakest + strongest) / 2;
        const filtered = await search(user, "enzymes", { minRelevance: threshold });
        expect(sortedIds(filtered)).toEqual(idList(strongNote, strongQuiz));
        expect(filtered.total).toBe(2);
        expect(filtered.byType).toEqual({ note: 1, quiz: 1 });
        for (const hit of filtered.hits) expect(hit.relevanceScore).toBeGreaterThanOrEqual(threshold);

        const best = all.hits[0].relevanceScore;
        if (best < 1) expect(await search(user, "enzymes", { minRelevance: Math.min(1, best + 1e-6) })).toEqual({ hits: [], total: 0, byType: {} });
      });

      it("pages with limit and offset in a stable order, with the total of every match", async () => {
        const user = newUser();
        const sessions = Array.from({ length: 7 }, (_, i) =>
          aRecord(user, { title: "Revision session", createdAt: at(`2026-04-0${i + 1}T09:00:00.000Z`) }),
        );
        await index().upsert([...sessions, aRecord(user, { title: "Unrelated" }), aRecord(user, { title: "Session planning" })]);

        const full = await search(user, "revision session");
        expect(full.total).toBe(7);
        expect(sortedIds(full)).toEqual(idList(...sessions));
        expect(idsOf(await search(user, "revision session"))).toEqual(idsOf(full));

        const pages = await Promise.all([0, 3, 6].map((offset) => search(user, "revision session", { limit: 3, offset })));
        expect(pages.map((page) => page.hits.length)).toEqual([3, 3, 1]);
        expect(pages.flatMap(idsOf)).toEqual(idsOf(full));
        for (const page of pages) {
          expect(page.total).toBe(7);
          expect(page.byType).toEqual({ note: 7 });
        }
        expect(await search(user, "revision session", { limit: 3, offset: 7 })).toEqual({ hits: [], total: 7, byType: { note: 7 } });
        expect(await search(user, "revision session", { limit: 10, offset: 100 })).toEqual({ hits: [], total: 7, byType: { note: 7 } });
      });

      it("counts matches per type, before paging, leaving out types without a match", async () => {
        const user = newUser();
        const make = (type: RecordType, count: number) =>
          Array.from({ length: count }, (_, i) => aRecord(user, { type, title: `Thermodynamics ${type} ${i}` }));
        await index().upsert([
          ...make("note", 2),
          ...make("quiz", 1),
          ...make("flashcard_set", 3),
          ...make("course", 1),
          aRecord(user, { type: "study_guide", title: "Kinetics" }),
        ]);

        const expected = { note: 2, quiz: 1, flashcard_set: 3, course: 1 };
        const page = await search(user, "thermodynamics", { limit: 2 });
        expect(page.hits).toHaveLength(2);
        expect(page.total).toBe(7);
        expect(page.byType).toEqual(expected);
        expect((await search(user, "thermodynamics", { types: ["quiz", "course"] })).byType).toEqual({ quiz: 1, course: 1 });
      });

      it("scores within 0-1, best first, a record matching more of the query above one matching less", async () => {
        const user = newUser();
        const both = aRecord(user, { title: "Genetics and inheritance", description: "Mendel genetics" });
        const titleOnly = aRecord(user, { title: "Genetics", content: filler(50) });
        const contentOnly = aRecord(user, { title: "Week five", content: `${filler(80)} genetics ${filler(80)}` });
        await index().upsert([contentOnly, titleOnly, both]);

        const page = await search(user, "genetics");
        expect(page.total).toBe(3);
        expect(idsOf(page)[2]).toBe(contentOnly.id);
        for (const hit of page.hits) expect(hit.relevanceScore).toBeGreaterThan(0);
      });
    });

    describe("snippets and highlights", () => {
      it("marks the matched word in a snippet and lists it among the highlights", async () => {
        const user = newUser();
        const record = aRecord(user, { title: "Photosynthesis basics", content: `${filler(50)} Chloroplasts capture light. ${filler(50)}` });
        await index().upsert([record]);

        const [hit] = (await search(user, "photosynthesis")).hits;
        expect(hit.snippet).toMatch(/<mark>photosynthesis<\/mark>/i);
        expect(hit.highlights.map((word) => word.toLowerCase())).toContain("photosynthesis");

        const [both] = (await search(user, "photosynthesis chloroplasts")).hits;
        const lowered = both.highlights.map((word) => word.toLowerCase());
        expect(lowered).toContain("photosynthesis");
        expect(lowered).toContain("chloroplasts");
        expect(both.snippet).toMatch(/<mark>/);

        const [prefix] = (await search(user, "chloro")).hits;
        expect(prefix.snippet).toMatch(/<mark>chloro/i);
        expect(prefix.highlights.length).toBeGreaterThan(0);
        for (const word of prefix.highlights) expect(word.toLowerCase().startsWith("chloro")).toBe(true);
      });

      it("takes the snippet from the matching part of a long content, as an excerpt", async () => {
        const user = newUser();
        const content = `${filler(1500)} the ribosome translates messenger RNA ${filler(1500)}`;
        const record = aRecord(user, { title: "Lecture eleven", content });
        await index().upsert([record]);

        const [hit] = (await search(user, "ribosome")).hits;
        expect(hit.snippet).toMatch(/<mark>ribosome<\/mark>/i);
        expect(hit.snippet.length).toBeLessThan(1000);
        expect(hit.highlights.map((word) => word.toLowerCase())).toEqual(["ribosome"]);
      });

      it("escapes the record's text in snippets: only <mark> is markup", async () => {
        const user = newUser();
        const record = aRecord(user, {
          title: "Injection <script>alert(1)</script> notes",
          content: `Polymerase <img src=x onerror=alert(1)> & "quotes" ${filler(20)}`,
        });
        await index().upsert([record]);

        for (const text of ["injection", "polymerase"]) {
          const [hit] = (await search(user, text)).hits;
          expect(hit.snippet).toMatch(/<mark>/);
          const withoutMarks = hit.snippet.replace(/<\/?mark>/g, "");
          expect(withoutMarks).not.toMatch(/[<>]/);
        }
      });
    });

    describe("writes", () => {
      it("replaces a record upserted again under the same key, without a duplicate", async () => {
        const user = newUser();
        const original = aRecord(user, { title: "Draft about volcanoes", keywords: ["geology"] });
        await index().upsert([original]);
        await index().upsert([original]);
        expect((await search(user, "volcanoes")).total).toBe(1);

        const renamed = { ...original, title: "Final about earthquakes", keywords: ["seismology"], updatedAt: at("2026-05-01T00:00:00.000Z") };
        await index().upsert([renamed]);
        expect(await search(user, "volcanoes")).toEqual({ hits: [], total: 0, byType: {} });
        expect(await search(user, "geology")).toEqual({ hits: [], total: 0, byType: {} });
        const page = await search(user, "earthquakes");
        expect(page.total).toBe(1);
        expect(page.hits[0].record).toEqual(renamed);
        expect((await index().suggest(user, "volc", 10)).filter((s) => /volcano/i.test(s))).toEqual([]);
      });

      it("accepts empty writes and the removal of unknown keys", async () => {
        await index().upsert([]);
        await index().remove([]);
        await index().remove([{ type: "quiz", id: randomUUID() }]);
        await index().removeUser(newUser());
      });

      it("removes records by key, leaving the others", async () => {
        const user = newUser();
        const note = aRecord(user, { type: "note", title: "Plate tectonics" });
        const quiz = aRecord(user, { type: "quiz", id: note.id, title: "Plate tectonics quiz" }); // same id, other type
        const guide = aRecord(user, { type: "study_guide", title: "Plate boundaries" });
        await index().upsert([note, quiz, guide]);
        expect((await search(user, "plate")).total).toBe(3);

        await index().remove([
          { type: "note", id: note.id },
          { type: "study_guide", id: guide.id },
        ]);
        const page = await search(user, "plate");
        expect(page.hits.map((hit) => hit.record.type)).toEqual(["quiz"]);
        expect(page.byType).toEqual({ quiz: 1 });
        expect((await index().suggest(user, "bound", 10)).filter((s) => /boundaries/i.test(s))).toEqual([]);
      });

      it("removes every record of one user, and only of that user", async () => {
        const leaving = newUser();
        const staying = newUser();
        await index().upsert([
          ...RECORD_TYPES.map((type) => aRecord(leaving, { type, title: `Astronomy ${type}` })),
          aRecord(staying, { title: "Astronomy club" }),
        ]);
        expect((await search(leaving, "astronomy")).total).toBe(RECORD_TYPES.length);

        await index().removeUser(leaving);
        expect(await search(leaving, "astronomy")).toEqual({ hits: [], total: 0, byType: {} });
        expect(await index().suggest(leaving, "astro", 10)).toEqual([]);
        expect((await search(staying, "astronomy")).total).toBe(1);
        expect((await index().suggest(staying, "astro", 10)).length).toBeGreaterThan(0);
      });
    });

    describe("tenant isolation", () => {
      it("never shows one user's records, counts or suggestions to another, for any type", async () => {
        const alice = newUser();
        const bob = newUser();
        const aliceCourse = randomUUID();
        const aliceRecords = RECORD_TYPES.map((type) =>
          aRecord(alice, { type, courseId: aliceCourse, title: `Confidential ${type}`, keywords: ["zygomorphic"], content: "xenobiotic metabolism" }),
        );
        const bobRecord = aRecord(bob, { title: "Zygote development" });
        await index().upsert([...aliceRecords, bobRecord]);

        const aliceSees = await search(alice, "zygomorphic");
        expect(aliceSees.total).toBe(RECORD_TYPES.length);
        expect(aliceSees.byType).toEqual(Object.fromEntries(RECORD_TYPES.map((type) => [type, 1])));

        const nothing = { hits: [], total: 0, byType: {} };
        for (const text of ["zygomorphic", "confidential", "xenobiotic", "zygomorfic", "xenobio", "confid"]) {
          expect(await search(bob, text)).toEqual(nothing);
        }
        for (const type of RECORD_TYPES) expect(await search(bob, "confidential", { types: [type] })).toEqual(nothing);
        expect(await search(bob, "zygote", { courseId: aliceCourse })).toEqual(nothing);

        expect(idsOf(await search(bob, "zyg"))).toEqual([bobRecord.id]);
        expect(idsOf(await search(bob, "zygomorphic development"))).toEqual([]);
        for (const prefix of ["zygomorph", "confid", "xenob", "Confidential"]) expect(await index().suggest(bob, prefix, 10)).toEqual([]);
        for (const suggestion of await index().suggest(alice, "zyg", 10)) expect(suggestion.toLowerCase()).not.toContain("zygote");
        for (const suggestion of await index().suggest(bob, "zyg", 10)) expect(suggestion.toLowerCase()).not.toContain("zygomorphic");
      });

      it("keeps a user id made of filter syntax to its own records", async () => {
        const victim = newUser();
        const attacker = `${newUser()}" OR userId != "x' OR '1'='1`;
        await index().upsert([aRecord(victim, { title: "Secret diary" }), aRecord(attacker, { title: "Public diary" })]);
        const page = await search(attacker, "diary");
        expect(page.total).toBe(1);
        expect(page.hits[0].record.userId).toBe(attacker);
      });
    });

    describe("suggestions", () => {
      it("suggests the user's own titles and terms that start with the prefix", async () => {
        const user = newUser();
        const records = [
          aRecord(user, { title: "Photosynthesis basics" }),
          aRecord(user, { type: "quiz", title: "Photon energy levels", description: "Planck constant" }),
          aRecord(user, { title: "Cell division" }),
        ];
        await index().upsert(records);
        const ownText = records
          .map((r) => [r.title, ...r.keywords, r.description, r.content].join(" "))
          .join(" ")
          .toLowerCase();

        const suggestions = await index().suggest(user, "phot", 10);
        expect(suggestions.length).toBeGreaterThan(0);
        expect(suggestions.length).toBeLessThanOrEqual(10);
        expect(new Set(suggestions).size).toBe(suggestions.length);
        expect(suggestions.some((s) => /photosynthesis/i.test(s))).toBe(true);
        expect(suggestions.some((s) => /photon/i.test(s))).toBe(true);
        for (const suggestion of suggestions) {
          expect(ownText).toContain(suggestion.toLowerCase());
          expect(suggestion.toLowerCase()).not.toContain("division");
        }
        expect(await index().suggest(user, "Phot", 1)).toHaveLength(1);
        expect(await index().suggest(user, "zzzq", 10)).toEqual([]);
      });
    });

    describe("queries and filter values made of special characters", () => {
      const user = newUser();
      const other = newUser();
      const course = randomUUID();
      const leaf = aRecord(user, { courseId: course, title: "Photosynthesis in plants", content: "chlorophyll absorbs light" });
      const division = aRecord(user, { courseId: course, title: "Cell division" });
      const quantum = aRecord(user, { title: "Quantum mechanics" });
      const foreign = aRecord(other, { courseId: course, title: "Photosynthesis secrets" });

      beforeAll(async () => {
        await index().upsert([leaf, division, quantum, foreign]);
      });

      const wordless = [
        '"',
        "'",
        "\\",
        "*",
        ":",
        "&|!()",
        "()",
        "<->",
        "%",
        "_",
        "-",
        "!",
        "|",
        "&",
        "🌱",
        "\u0000",
        "''",
        '""',
        "\\'",
        "::*",
        "     ",
      ];
      it.each(wordless)("finds nothing for the wordless query %j", async (text) => {
        expect(await search(user, text)).toEqual({ hits: [], total: 0, byType: {} });
      });

      const around = [
        '"photosynthesis"',
        'photosynthesis"',
        "photosynthesis'",
        "(photosynthesis)",
        "photosynthesis!",
        "photosynthesis:*",
        "photosynthesis\\",
        "photosynthesis*",
        "photosynthesis;",
        "photosynthesis & | ! ( )",
        "photosynthesis <->",
        "photosynthesis\u0000",
      ];
      it.each(around)("finds the record through the punctuation of %j", async (text) => {
        expect(idsOf(await search(user, text))).toEqual([leaf.id]);
      });

      const hostile = [
        "photosynthesis AND",
        "photosynthesis OR quantum",
        "photosynthesis | quantum",
        "photosynthesis OR 1=1",
        "NOT photosynthesis",
        "!photosynthesis",
        "-photosynthesis",
        "title:photosynthesis",
        "userId:*",
        "photo* OR *",
        "' OR 1=1 --",
        "'; DROP TABLE search_document; --",
        '" OR userId != "',
        "photosynthesis <-> quantum",
        "AND",
        "OR",
        "NOT",
        "photosynthesis 🌱",
        "Ünïcödé 日本語 photosynthesis",
        "\\' photosynthesis \\\"",
        "a".repeat(500),
        Array.from({ length: 60 }, () => "photosynthesis").join(" "),
      ];
      it.each(hostile)("never errs nor widens the results for %j", async (text) => {
        const page = await search(user, text);
        for (const id of idsOf(page)) expect([leaf.id]).toContain(id);
        expect(page.total).toBe(page.hits.length);
      });

      const hostileCourseIds = [`${course}" OR courseId != "`, `' OR '1'='1`, "\\", '"', "*", `${course}\\`, "🌱", ""];
      it.each(hostileCourseIds)("matches the courseId %j literally", async (courseId) => {
        expect(await search(user, "photosynthesis", { courseId })).toEqual({ hits: [], total: 0, byType: {} });
      });

      it("still filters by the real course id", async () => {
        expect(sortedIds(await search(user, "photosynthesis", { courseId: course }))).toEqual([leaf.id]);
      });

      const hostilePrefixes = ['"', "\\", "*", "%", "_", "ph%", "ph_", "' OR '1'='1", "&|!()", "🌱", "\u0000"];
      it.each(hostilePrefixes)("suggests only the user's own words for the prefix %j", async (prefix) => {
        const suggestions = await index().suggest(user, prefix, 10);
        for (const suggestion of suggestions) expect(suggestion.toLowerCase()).not.toContain("secrets");
        if (!/^ph/.test(prefix)) expect(suggestions).toEqual([]);
      });
    });
  });
}
