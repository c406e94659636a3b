import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { migrationSources } from "@study/runtime/migrate";
import { createTestDatabase } from "@study/testkit";
import { PostgresSearchIndex } from "../../src/adapters/index/postgres/postgres-search-index";
import { PrismaClient } from "../../src/generated/prisma/client";
import { searchMigrations } from "../../src/migrations";
import { aQuery, aRecord, idsOf, searchIndexContract } from "../contract/search-index.contract";

/** One database for the file, migrated once: the contract's tests and these share it (each with its own users). */
let databaseUrl: Promise<string> | undefined;
const database = () => (databaseUrl ??= createTestDatabase("search_embedded", migrationSources(searchMigrations)));

async function openIndex() {
  const db = new PrismaClient(prismaOptions(await database(), 4));
  return { db, index: new PostgresSearchIndex(db), close: () => db.$disconnect() };
}

searchIndexContract("embedded (PostgreSQL)", openIndex);

describe("PostgresSearchIndex (embedded)", () => {
  let opened: Awaited<ReturnType<typeof openIndex>>;
  const index = () => opened.index;
  const termsOf = async (userId: string) =>
    Object.fromEntries(
      (
        await opened.db.$queryRaw<
          { term: string; frequency: number }[]
        >`SELECT term, frequency FROM search_term WHERE user_id = ${userId} ORDER BY term`
      ).map((row) => [row.term, row.frequency]),
    );

  beforeAll(async () => {
    opened = await openIndex();
  });

  afterAll(async () => {
    await opened.close();
  });

  it("has its tables, generated vector, indexes, pg_trgm and btree_gin from the migrations", async () => {
    const extensions = await opened.db.$queryRaw<
      { extname: string }[]
    >`SELECT extname::text FROM pg_extension WHERE extname IN ('pg_trgm', 'btree_gin')`;
    expect(extensions).toHaveLength(2);
    const indexes = await opened.db.$queryRaw<{ indexname: string }[]>`
      SELECT indexname::text FROM pg_indexes WHERE tablename IN ('search_document', 'search_term') ORDER BY indexname`;
    expect(indexes.map((row) => row.indexname)).toEqual([
      "search_document_pkey",
      "search_document_user_id_idx",
      "search_document_user_vector_idx",
      "search_term_pkey",
    ]);
    const functions = await opened.db.$queryRaw<{ proname: string }[]>`
      SELECT proname::text FROM pg_proc WHERE proname LIKE 'search\_%' ORDER BY proname`;
    expect(functions.map((row) => row.proname)).toEqual(["search_content_window", "search_keywords_text", "search_word_query"]);
    const user = randomUUID();
    await index().upsert([aRecord(user, { title: "Weighted title", keywords: ["kw"], description: "described", content: "contents" })]);
    const [row] = await opened.db.$queryRaw<{ vector: string }[]>`SELECT search_vector::text AS vector FROM search_document WHERE user_id = ${user}`;
    // Each field in both configurations: English stems and the words as written, weighted A, B, C, D (content: none shown).
    expect(row.vector).toMatch(/'weight':\d+A/);
    expect(row.vector).toMatch(/'weighted':\d+A/);
    expect(row.vector).toMatch(/'kw':\d+B/);
    expect(row.vector).toMatch(/'describ':\d+C/);
    expect(row.vector).toMatch(/'described':\d+C/);
    expect(row.vector).toMatch(/'contents':\d+ /);
  });

  it("counts each term once per record of the user, and takes the counts back on change and removal", async () => {
    const user = randomUUID();
    const first = aRecord(user, { title: "Membrane transport", content: "osmosis osmosis diffusion" });
    const second = aRecord(user, { title: "Membrane potential", keywords: ["Neuro"] });
    await index().upsert([first, second]);
    expect(await termsOf(user)).toEqual({ membrane: 2, transport: 1, potential: 1, neuro: 1, osmosis: 1 });

    await index().upsert([{ ...first, title: "Active transport" }]);
    expect(await termsOf(user)).toEqual({ active: 1, membrane: 1, transport: 1, potential: 1, neuro: 1, osmosis: 1 });

    await index().remove([{ type: second.type, id: second.id }]);
    expect(await termsOf(user)).toEqual({ active: 1, transport: 1, osmosis: 1 });
    await index().removeUser(user);
    expect(await termsOf(user)).toEqual({});
  });

  it("keeps term counts right under concurrent writes of one user", async () => {
    const user = randomUUID();
    const records = Array.from({ length: 12 }, (_, i) => aRecord(user, { title: `Concurrency lecture ${i}` }));
    await Promise.all(records.map((record) => index().upsert([record])));
    await Promise.all(records.map((record) => index().upsert([{ ...record, title: "Concurrency recap" }])));
    expect(await termsOf(user)).toEqual({ concurrency: 12, recap: 12 });
    await Promise.all(records.slice(0, 5).map((record) => index().remove([{ type: record.type, id: record.id }])));
    expect(await termsOf(user)).toEqual({ concurrency: 7, recap: 7 });
  });

  it("corrects a word matching nothing to the user's terms, scoring it below an exact match, and leaves known words alone", async () => {
    const user = randomUUID();
    const exact = aRecord(user, { title: "Chromosome structure" });
    const frequentInContent = aRecord(user, { title: "Week two", content: "the centromere joins chromatids; the centromere divides" });
    await index().upsert([exact, frequentInContent]);

    const correct = await index().search(aQuery(user, "chromosome"));
    const typo = await index().search(aQuery(user, "chromosone"));
    expect(idsOf(typo)).toEqual([exact.id]);
    expect(typo.hits[0].relevanceScore).toBeLessThan(correct.hits[0].relevanceScore);
    expect(typo.hits[0].snippet).toBe("<mark>Chromosome</mark> structure");
    // A frequent content word is a term too.
    expect(idsOf(await index().search(aQuery(user, "centromire")))).toEqual([frequentInContent.id]);
    // Two typos only from nine letters; none under five.
    expect(idsOf(await index().search(aQuery(user, "chromozone structure")))).toEqual([exact.id]);
    expect(idsOf(await index().search(aQuery(user, "chrmozone structure")))).toEqual([]);
    expect(idsOf(await index().search(aQuery(user, "wek two")))).toEqual([]);
    // Another user's terms are never corrections.
    const other = randomUUID();
    await index().upsert([aRecord(other, { title: "Chromosone typo in a title" })]);
    expect(idsOf(await index().search(aQuery(user, "chromosone")))).toEqual([exact.id]);
  });

  it("suggests the user's closest terms for a misspelt word, after the titles and terms it starts, and never another user's", async () => {
    const user = randomUUID();
    const other = randomUUID();
    await index().upsert([
      aRecord(user, { title: "Photosynthesis basics" }),
      aRecord(user, { title: "Mitochondria and respiration" }),
      aRecord(other, { title: "Photosyntesis typo of the other user" }),
    ]);
    expect(await index().suggest(user, "photosyntesis", 5)).toEqual(["photosynthesis"]);
    expect(await index().suggest(user, "mitochnodria", 5)).toEqual(["mitochondria"]);
    // Titles and terms that the word starts come first; candidates only fill the rest.
    expect(await index().suggest(user, "photo", 5)).toEqual(["Photosynthesis basics", "photosynthesis"]);
    expect(await index().suggest(user, "photo", 1)).toEqual(["Photosynthesis basics"]);
    // Under five letters no typo is tolerated; several words get no term suggestions.
    expect(await index().suggest(user, "mitx", 5)).toEqual([]);
    expect(await index().suggest(other, "mitochnodria", 5)).toEqual([]);
  });

  it("drops stop words from a query unless they are all it has", async () => {
    const user = randomUUID();
    const record = aRecord(user, { title: "Structure of DNA" });
    await index().upsert([record]);
    expect(idsOf(await index().search(aQuery(user, "the structure of dna")))).toEqual([record.id]);
    expect(idsOf(await index().search(aQuery(user, "of")))).toEqual([record.id]);
  });

  it("indexes big contents up to 100 000 characters, and answers with a short snippet", async () => {
    const user = randomUUID();
    // Unique tokens in Latin and CJK script: the worst case for the vector's size.
    const tokens = Array.from({ length: 120_000 }, (_, i) =>
      i % 2 === 0 ? `tok${i.toString(36)}` : `字${String.fromCodePoint(0x4e00 + (i % 20000))}${i}`,
    );
    const content = `prologue ${tokens.join(" ")} epilogueword`;
    expect(content.length).toBeGreaterThan(900_000);
    const big = aRecord(user, { title: "Very long transcript", content });
    await index().upsert([big]);

    const page = await index().search(aQuery(user, "prologue"));
    expect(idsOf(page)).toEqual([big.id]);
    expect(page.hits[0].record.content).toBe(content);
    expect(page.hits[0].snippet).toMatch(/<mark>prologue<\/mark>/);
    expect(page.hits[0].snippet.length).toBeLessThan(1000);
    // The excerpt is taken around the match, deep in the content too.
    const deep = (await index().search(aQuery(user, tokens[8_000]))).hits[0];
    expect(deep.snippet).toContain(`<mark>${tokens[8_000]}</mark>`);
    expect(deep.snippet.length).toBeLessThan(1000);
    // Past the indexed part: not found (documented limit).
    expect(await index().search(aQuery(user, "epilogueword"))).toEqual({ hits: [], total: 0, byType: {} });
  });

  it("answers within a few milliseconds among many users' records", async () => {
    const users = Array.from({ length: 40 }, () => randomUUID());
    const words = ["enzyme", "kinetics", "membrane", "protein", "genome", "ribosome", "mitosis", "osmosis", "neuron", "synapse"];
    const records = users.flatMap((user, u) =>
      Array.from({ length: 50 }, (_, i) =>
        aRecord(user, {
          type: (["note", "quiz", "flashcard_set", "study_guide"] as const)[i % 4],
          title: `${words[(i + u) % words.length]} lecture ${i}`,
          content: Array.from({ length: 200 }, (_, j) => words[(i * j + u) % words.length]).join(" "),
        }),
      ),
    );
    for (let i = 0; i < records.length; i += 250) await index().upsert(records.slice(i, i + 250));
    await opened.db.$executeRaw`ANALYZE search_document`;

    const started = process.hrtime.bigint();
    const runs = 40;
    for (let i = 0; i < runs; i++) {
      const page = await index().search(aQuery(users[i % users.length], i % 2 ? "enzyme kin" : "membrane", { limit: 20 }));
      expect(page.total).toBeGreaterThan(0);
    }
    const meanMs = Number(process.hrtime.bigint() - started) / 1e6 / runs;
    // Not a benchmark (bench/ measures), a guard against a plan that scans every user's rows.
    expect(meanMs).toBeLessThan(250);
  });
});
