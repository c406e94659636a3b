import { randomUUID } from "node:crypto";
import { createOpenAiClient } from "@study/ai";
import { prismaOptions } from "@study/db";
import { migrationSources } from "@study/runtime/migrate";
import { appErrorOf, refusal } from "@study/testkit/refusal";
import { createTestDatabase, startOpenAiEmbeddingsServer, type OpenAiEmbeddingsServer } from "@study/testkit";
import { PrismaDocumentSearch } from "../../src/adapters/db/prisma-document-search";
import { OpenAiEmbeddingProvider } from "../../src/adapters/embeddings/openai-embedding-provider";
import type { CourseDirectory } from "../../src/application/ports/course-directory.port";
import type { EmbeddingProvider } from "../../src/application/ports/embedding-provider.port";
import { prepareChunks } from "../../src/application/prepare-chunks";
import { SearchDocuments, type SearchDocumentsInput } from "../../src/application/search-documents";
import { maxFusedScore, reciprocalRankFusion } from "../../src/domain/rank-fusion";
import { PrismaClient } from "../../src/generated/prisma/client";
import { documentsMigrations } from "../../src/migrations";

let db: PrismaClient;
let server: OpenAiEmbeddingsServer;
let embeddings: EmbeddingProvider;
let search: PrismaDocumentSearch;

beforeAll(async () => {
  const url = await createTestDatabase("documents_search", migrationSources(documentsMigrations));
  db = new PrismaClient(prismaOptions(url, 4));
  search = new PrismaDocumentSearch(db);
  server = await startOpenAiEmbeddingsServer();
  embeddings = new OpenAiEmbeddingProvider({ client: createOpenAiClient({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 }) });
});

afterAll(async () => {
  await db.$disconnect();
  await server.close();
});

interface NewDocument {
  userId: string;
  courseId: string;
  title?: string;
  documentType?: string;
  tags?: string[];
  status?: "PENDING" | "PROCESSING" | "COMPLETED" | "FAILED";
  author?: string;
  /** Page texts. */
  pages: string[];
  createdAt?: Date;
  /** Default: the stand-in's model; null: chunks without embeddings. */
  provider?: EmbeddingProvider | null;
}

/** A document as processing leaves it: the row, and its chunks from prepareChunks (embedded by `provider`). */
async function addDocument(document: NewDocument): Promise<string> {
  const id = randomUUID();
  const text = document.pages.join("\n\n");
  await db.document.create({
    data: {
      id,
      userId: document.userId,
      courseId: document.courseId,
      title: document.title ?? "A document",
      fileName: "file.pdf",
      fileSize: BigInt(text.length),
      format: "PDF",
      mimeType: "application/pdf",
      storageKey: `documents/${id}`,
      documentType: document.documentType ?? "PDF",
      tags: document.tags ?? [],
      status: document.status ?? "COMPLETED",
      extractedText: text,
      author: document.author ?? null,
      pageCount: document.pages.length,
      wordCount: text.split(/\s+/).filter(Boolean).length,
      ...(document.createdAt ? { createdAt: document.createdAt } : {}),
    },
  });
  let offset = 0;
  const pages = document.pages.map((pageText, index) => {
    const page = { number: index + 1, text: pageText, startOffset: offset };
    offset += pageText.length + 2;
    return page;
  });
  const chunks = await prepareChunks(pages, document.provider === undefined ? embeddings : document.provider);
  for (const chunk of chunks) {
    await db.$executeRaw`
      INSERT INTO document_chunk (document_id, user_id, course_id, page, position, text, start_offset, end_offset, embedding, embedding_model)
      VALUES (${id}::uuid, ${document.userId}, ${document.courseId}, ${chunk.page}, ${chunk.position}, ${chunk.text}, ${chunk.startOffset},
              ${chunk.endOffset}, ${chunk.embedding}::real[], ${chunk.embeddingModel})`;
  }
  return id;
}

/** A fresh user and course, so that every test has its own documents. */
function scope() {
  const userId = randomUUID();
  const courseId = randomUUID();
  const input = (overrides: Partial<SearchDocumentsInput> = {}): SearchDocumentsInput => ({ userId, courseId, query: "x", ...overrides });
  const add = (document: Omit<NewDocument, "userId" | "courseId"> & Partial<NewDocument>) => addDocument({ userId, courseId, ...document });
  return { userId, courseId, input, add };
}

/** Every course is its user's here: the course check is the use case's (unit tests), this file tests the SQL. */
const everyCourseOwned: CourseDirectory = { assertOwned: async () => undefined };
const withEmbeddings = () => new SearchDocuments(search, embeddings, everyCourseOwned);
const keywordOnly = () => new SearchDocuments(search, null, everyCourseOwned);
const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * b[i], 0);

const FILLER = "The course also covers the history of the discipline, its methods and the lab safety rules.";

describe("document search (PostgreSQL)", () => {
  it("ranks documents by their best chunk, one result each, with snippet, highlights, page and metadata", async () => {
    const { input, add } = scope();
    const dense = await add({
      title: "Photosynthesis notes",
      author: "Dr. Green",
      tags: ["biology"],
      pages: [FILLER, FILLER, "Photosynthesis happens in chloroplasts. Photosynthesis needs light, water and carbon dioxide."],
      createdAt: new Date("2026-01-01T00:00:00Z"),
    });
    const sparse = await add({
      title: "General biology",
      pages: [`${FILLER} ${FILLER} Plants rely on photosynthesis. ${FILLER} ${FILLER}`],
      createdAt: new Date("2026-02-01T00:00:00Z"),
    });
    await add({ title: "History", pages: ["The French Revolution began in 1789."] });

    const answer = await keywordOnly().execute(input({ query: "photosynthesis" }));
    expect(answer.searchType).toBe("keyword");
    expect(answer.totalCount).toBe(2);
    expect(answer.results.map((result) => result.documentId)).toEqual([dense, sparse]);
    const [top, second] = answer.results;
    expect(top.relevanceScore).toBe(1);
    expect(second.relevanceScore).toBeGreaterThan(0);
    expect(second.relevanceScore).toBeLessThan(1);
    expect(top).toEqual(
      expect.objectContaining({
        title: "Photosynthesis notes",
        documentType: "PDF",
        author: "Dr. Green",
        pageCount: 3,
        tags: ["biology"],
        createdAt: new Date("2026-01-01T00:00:00Z"),
        page: 3,
        highlights: ["Photosynthesis"],
      }),
    );
    expect(top.wordCount).toBeGreaterThan(20);
    expect(top.snippet).toContain("Photosynthesis happens in chloroplasts.");
    expect(top.snippet).not.toMatch(/[\uE000\uE001]/);
    expect(second.highlights).toEqual(["photosynthesis"]);
    expect(second.snippet).toContain("Plants rely on photosynthesis.");
    expect(second.snippet.length).toBeLessThan(400);
  });

  it("matches English stems and web-search syntax, and relaxes to any word when no chunk holds them all", async () => {
    const { input, add } = scope();
    const membranes = await add({ pages: ["Cell membranes regulate transport. Osmosis moves water."] });
    const ocean = await add({ pages: ["Ocean currents move heat around the planet."] });
    const search = keywordOnly();

    const stemmed = await search.execute(input({ query: "membrane transporting" }));
    expect(stemmed.results.map((result) => [result.documentId, result.highlights])).toEqual([[membranes, ["membranes", "transport"]]]);
    const phrase = await search.execute(input({ query: '"moves water"' }));
    expect([phrase.totalCount, phrase.results.map((result) => result.documentId)]).toEqual([1, [membranes]]);
    expect((await search.execute(input({ query: "move -ocean" }))).results.map((result) => result.documentId)).toEqual([membranes]);

    const relaxed = await search.execute(input({ query: "osmosis ocean volcano" }));
    expect(relaxed.totalCount).toBe(2);
    expect(new Set(relaxed.results.map((result) => result.documentId))).toEqual(new Set([membranes, ocean]));
    expect((await search.execute(input({ query: "the and of" }))).totalCount).toBe(0);
  });

  it("searches only the user's processed documents of the course, with the type and tag filters", async () => {
    const { userId, courseId, input, add } = scope();
    const handout = await add({ documentType: "HANDOUT", tags: ["exam", "week1"], pages: ["Enzymes lower activation energy."] });
    const pdf = await add({ documentType: "PDF", tags: ["week2"], pages: ["Enzymes are proteins."] });
    await add({ status: "PENDING", pages: ["Enzymes in a document still being processed."] });
    await add({ status: "FAILED", pages: ["Enzymes in a failed document."] });
    await addDocument({ userId: randomUUID(), courseId, pages: ["Enzymes of another user, same course id."] });
    await addDocument({ userId, courseId: randomUUID(), pages: ["Enzymes in another course of the user."] });
    const search = keywordOnly();

    const all = await search.execute(input({ query: "enzymes" }));
    expect(new Set(all.results.map((result) => result.documentId))).toEqual(new Set([handout, pdf]));
    expect(all.totalCount).toBe(2);
    expect((await search.execute(input({ query: "enzymes", documentTypes: ["handout"] }))).results.map((result) => result.documentId)).toEqual([
      handout,
    ]);
    expect((await search.execute(input({ query: "enzymes", tags: ["week2", "none"] }))).results.map((result) => result.documentId)).toEqual([pdf]);
    expect((await search.execute(input({ query: "enzymes", documentTypes: ["PDF"], tags: ["exam"] }))).totalCount).toBe(0);
    // The same holds for semantic search.
    const semantic = await withEmbeddings().execute(input({ query: "enzymes", searchType: "semantic" }));
    expect(semantic.searchType).toBe("semantic");
    expect(new Set(semantic.results.map((result) => result.documentId))).toEqual(new Set([handout, pdf]));
  });

  it("pages with limit and offset and counts every matching document", async () => {
    const { input, add } = scope();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(await add({ pages: [`${"Mitosis ".repeat(5 - i)}${FILLER}`], createdAt: new Date(Date.UTC(2026, 0, 1 + i)) }));
    }
    const search = keywordOnly();
    const page = await search.execute(input({ query: "mitosis", limit: 2, offset: 1 }));
    expect(page.totalCount).toBe(5);
    expect(page.results.map((result) => result.documentId)).toEqual(ids.slice(1, 3));
    const beyond = await search.execute(input({ query: "mitosis", limit: 2, offset: 10 }));
    expect([beyond.totalCount, beyond.results]).toEqual([5, []]);
  });

  it("ranks semantically by the cosine similarity of the best chunk (embeddings of the stand-in server)", async () => {
    const { input, add } = scope();
    const plants = await add({
      title: "Plants",
      pages: ["The French Revolution began in 1789.", "Green leaves capture sunlight; chlorophyll makes sugar from sunlight."],
    });
    const leaves = await add({ title: "Leaves", pages: ["Leaves fall in autumn."] });
    await add({ title: "Kings", pages: ["Kings ruled by divine right."] });
    const requestsBefore = server.requests.length;

    const query = "sunlight chlorophyll leaves";
    const answer = await withEmbeddings().execute(input({ query, searchType: "semantic" }));
    expect(answer.searchType).toBe("semantic");
    expect(server.requests.slice(requestsBefore)).toEqual([expect.objectContaining({ inputs: 1, status: 200 })]);
    expect(answer.results.map((result) => [result.documentId, result.page])).toEqual([
      [plants, 2],
      [leaves, 1],
    ]);
    const expected = cosine(server.embed(query), server.embed("Green leaves capture sunlight; chlorophyll makes sugar from sunlight."));
    expect(answer.results[0].relevanceScore).toBeCloseTo(expected, 3);
    expect(answer.results[0].highlights).toEqual(["leaves", "sunlight", "chlorophyll"]);
    expect(answer.totalCount).toBe(2);
  });

  it("fuses the keyword and semantic rankings by reciprocal rank (hybrid)", async () => {
    const { input, add } = scope();
    const exact = await add({ pages: [`${FILLER} Glycolysis splits glucose. ${FILLER}`], createdAt: new Date("2026-03-01T00:00:00Z") });
    const close = await add({ pages: ["Glycolysis glucose pyruvate ATP."], createdAt: new Date("2026-01-01T00:00:00Z") });
    const semanticOnly = await add({ pages: ["Pyruvate and ATP come from glucose."], createdAt: new Date("2026-02-01T00:00:00Z") });
    const query = "glycolysis glucose";

    const keyword = await keywordOnly().execute(input({ query, limit: 100 }));
    const semantic = await withEmbeddings().execute(input({ query, searchType: "semantic", limit: 100 }));
    const hybrid = await withEmbeddings().execute(input({ query, searchType: "hybrid" }));
    expect(hybrid.searchType).toBe("hybrid");
    const fused = reciprocalRankFusion([keyword.results.map((result) => result.documentId), semantic.results.map((result) => result.documentId)]);
    expect(hybrid.results.map((result) => result.documentId)).toEqual(fused.map((item) => item.id));
    expect(hybrid.results.map((result) => result.relevanceScore)).toEqual(
      fused.map((item) => Math.round((item.score / maxFusedScore(2)) * 10_000) / 10_000),
    );
    expect(new Set(hybrid.results.map((result) => result.documentId))).toEqual(new Set([exact, close, semanticOnly]));
    expect(hybrid.totalCount).toBe(3);
    expect(keyword.totalCount).toBe(2);
  });

  it("runs keyword, and says so, without a provider or when the chunks hold another model's vectors", async () => {
    const { input, add } = scope();
    const id = await add({ pages: ["Ribosomes translate messenger RNA."] });
    for (const searchType of ["semantic", "hybrid"]) {
      const answer = await keywordOnly().execute(input({ query: "ribosomes", searchType }));
      expect([answer.searchType, answer.results.map((result) => [result.documentId, result.relevanceScore])]).toEqual(["keyword", [[id, 1]]]);
    }
    const otherModel = new OpenAiEmbeddingProvider({
      client: createOpenAiClient({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 }),
      model: "text-embedding-3-large",
    });
    const requestsBefore = server.requests.length;
    const answer = await new SearchDocuments(search, otherModel, everyCourseOwned).execute(input({ query: "ribosomes", searchType: "semantic" }));
    expect(answer.searchType).toBe("keyword");
    expect(server.requests.length).toBe(requestsBefore);

    const { input: unembeddedInput, add: addUnembedded } = scope();
    await addUnembedded({ provider: null, pages: ["Ribosomes without vectors."] });
    expect((await withEmbeddings().execute(unembeddedInput({ query: "ribosomes", searchType: "hybrid" }))).searchType).toBe("keyword");
  });

  it("fails with 502 (upstream) when the embedding service fails on the query", async () => {
    const { input, add } = scope();
    await add({ pages: ["Neurons fire action potentials."] });
    server.failNext(1);
    const error = await appErrorOf(withEmbeddings().execute(input({ query: "neurons", searchType: "semantic" })));
    expect([error.kind, error.code]).toEqual(["upstream", "EMBEDDING_FAILED"]);
    expect(error.message).toContain("HTTP 500");
  });

  it("suggests completions of the last word, then frequent words of the best results, never the query's words", async () => {
    const { input, add } = scope();
    await add({ pages: ["Photosynthesis uses photons. Photosynthetic pigments absorb photons; chlorophyll pigments dominate."] });
    await add({ pages: ["Photography is unrelated."] });

    const typing = await keywordOnly().execute(input({ query: "photo" }));
    expect(typing.suggestions.slice(0, 4)).toEqual(["photons", "photography", "photosynthesis", "photosynthetic"]);
    const full = await keywordOnly().execute(input({ query: "chlorophyll" }));
    expect(full.suggestions).toEqual(["photons", "pigments", "absorb", "dominate", "photosynthesis"]);
    expect(full.suggestions).not.toContain("chlorophyll");
    expect(full.suggestions.length).toBeLessThanOrEqual(5);
  });

  it("validates with the spec's codes", async () => {
    const { input } = scope();
    expect((await refusal(() => keywordOnly().execute(input({ query: "" })))).code).toBe("VALIDATION_ERROR");
    expect((await refusal(() => keywordOnly().execute(input({ limit: 101 })))).code).toBe("INVALID_LIMIT");
    expect((await refusal(() => keywordOnly().execute(input({ offset: -1 })))).code).toBe("INVALID_OFFSET");
    expect((await refusal(() => keywordOnly().execute(input({ searchType: "vector" })))).code).toBe("VALIDATION_ERROR");
  });
});
