import { AppError } from "@study/platform/errors";
import { appErrorOf, refusal } from "@study/testkit/refusal";
import type { CourseDirectory } from "../../src/application/ports/course-directory.port";
import type { EmbeddingProvider } from "../../src/application/ports/embedding-provider.port";
import { prepareChunks } from "../../src/application/prepare-chunks";
import { SearchDocuments, type SearchDocumentsInput } from "../../src/application/search-documents";
import { maxFusedScore, reciprocalRankFusion } from "../../src/domain/rank-fusion";
import { l2Normalize } from "../../src/domain/vector";
import { InMemoryDocumentSearch, type StoredDocument } from "./in-memory-document-search";

const USER = "user-1";
const COURSE = "course-1";
/** The courses service as search sees it: USER owns COURSE, nothing else is anyone's. */
const courses: CourseDirectory = {
  async assertOwned(userId, courseId) {
    if (userId !== USER || courseId !== COURSE) throw AppError.notFound("Course");
  },
};
const VOCABULARY = ["cell", "membrane", "energy", "light", "plant", "sugar", "war", "king", "revolution", "ocean"];

/** An embedding model over a ten-word vocabulary: texts sharing words are similar. Records what it embedded. */
class VocabularyEmbeddings implements EmbeddingProvider {
  readonly embedded: string[][] = [];
  constructor(
    readonly model = "vocabulary-1",
    private readonly failure?: AppError,
  ) {}

  async embed(texts: string[]): Promise<number[][]> {
    this.embedded.push(texts);
    if (this.failure) throw this.failure;
    return texts.map((text) => {
      const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
      return VOCABULARY.map((term) => words.filter((word) => word.startsWith(term)).length);
    });
  }
}

const embeddings = new VocabularyEmbeddings();
const vectorOf = (text: string) => l2Normalize(VOCABULARY.map((term) => (text.toLowerCase().match(new RegExp(`\\b${term}`, "g")) ?? []).length));

let sequence = 0;
function aDocument(overrides: Partial<StoredDocument> & { texts: string[]; embedded?: boolean }): StoredDocument {
  sequence += 1;
  const id = overrides.id ?? `doc-${sequence}`;
  return {
    id,
    userId: USER,
    courseId: COURSE,
    title: `Document ${sequence}`,
    documentType: "PDF",
    tags: [],
    processed: true,
    createdAt: new Date(Date.UTC(2026, 0, sequence)),
    ...overrides,
    chunks: overrides.texts.map((text, index) => ({
      id: `${id}-c${index}`,
      page: index + 1,
      text,
      ...(overrides.embedded === false ? {} : { embedding: vectorOf(text) ?? undefined, embeddingModel: embeddings.model }),
    })),
  };
}

function setUp(documents: StoredDocument[], provider: EmbeddingProvider | null = embeddings) {
  const search = new InMemoryDocumentSearch();
  search.documents.push(...documents);
  return { search, useCase: new SearchDocuments(search, provider, courses, { minSimilarity: 0.2 }) };
}

const input = (overrides: Partial<SearchDocumentsInput> = {}): SearchDocumentsInput => ({
  userId: USER,
  courseId: COURSE,
  query: "cell",
  ...overrides,
});

describe("SearchDocuments: validation", () => {
  const { useCase } = setUp([]);

  it.each([
    ["an empty query", { query: "  " }, "VALIDATION_ERROR", "query"],
    ["a query over 500 characters", { query: "a".repeat(501) }, "VALIDATION_ERROR", "query"],
    ["no course", { courseId: " " }, "VALIDATION_ERROR", "courseId"],
    ["a limit of 0", { limit: 0 }, "INVALID_LIMIT", "limit"],
    ["a limit of 101", { limit: 101 }, "INVALID_LIMIT", "limit"],
    ["a fractional limit", { limit: 1.5 }, "INVALID_LIMIT", "limit"],
    ["a negative offset", { offset: -1 }, "INVALID_OFFSET", "offset"],
    ["an unknown search type", { searchType: "fuzzy" }, "VALIDATION_ERROR", "searchType"],
    ["an unknown document type", { documentTypes: ["PDF", "EXE"] }, "VALIDATION_ERROR", "documentTypes"],
    ["too many tags", { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "VALIDATION_ERROR", "tags"],
  ])("refuses %s with %s", async (_case, overrides, code, field) => {
    const refused = await refusal(() => useCase.execute(input(overrides)));
    expect(refused).toEqual({ kind: "validation", code, details: [expect.objectContaining({ field })] });
  });

  it("answers NOT_FOUND for another user's course or an unknown one, after checking the parameters", async () => {
    const { useCase, search } = setUp([aDocument({ userId: "someone-else", courseId: "their-course", texts: ["cell"] })]);
    for (const scope of [{ userId: "someone-else" }, { courseId: "their-course" }, { courseId: "no-such-course" }]) {
      expect(await refusal(() => useCase.execute(input(scope)))).toEqual(expect.objectContaining({ kind: "not_found", code: "NOT_FOUND" }));
    }
    expect(await refusal(() => useCase.execute(input({ courseId: "their-course", limit: 0 })))).toEqual(
      expect.objectContaining({ code: "INVALID_LIMIT" }),
    );
    expect(search.documents).toHaveLength(1);
  });

  it("refuses a call without a user, and accepts a query of exactly 500 characters and the limits' bounds", async () => {
    expect(await refusal(() => useCase.execute(input({ userId: "" })))).toEqual(expect.objectContaining({ code: "VALIDATION_ERROR" }));
    await expect(useCase.execute(input({ query: "a".repeat(500), limit: 100, offset: 0 }))).resolves.toEqual(
      expect.objectContaining({ results: [], totalCount: 0 }),
    );
    await expect(useCase.execute(input({ limit: 1, searchType: "HYBRID", documentTypes: ["pdf"] }))).resolves.toBeDefined();
  });
});

describe("SearchDocuments: keyword", () => {
  it("ranks documents by their best chunk, one result each, with its snippet, highlights and page; top score 1", async () => {
    const strong = aDocument({ title: "Cells", texts: ["Intro to biology.", "The cell membrane surrounds the cell."] });
    const weak = aDocument({ title: "Plants", tags: ["botany"], texts: ["A plant cell has a wall."] });
    const none = aDocument({ texts: ["Kings and wars."] });
    const { useCase } = setUp([strong, weak, none]);

    const answer = await useCase.execute(input({ query: "cell" }));
    expect(answer.searchType).toBe("keyword");
    expect(answer.totalCount).toBe(2);
    expect(answer.results.map((result) => [result.documentId, result.relevanceScore, result.page])).toEqual([
      [strong.id, 1, 2],
      [weak.id, 0.5, 1],
    ]);
    expect(answer.results[0]).toEqual(
      expect.objectContaining({
        title: "Cells",
        documentType: "PDF",
        snippet: "The cell membrane surrounds the cell.",
        highlights: ["cell", "cell"],
      }),
    );
    expect(answer.results[1].tags).toEqual(["botany"]);
  });

  it("pages with limit and offset, counting every match", async () => {
    const documents = Array.from({ length: 5 }, (_, i) => aDocument({ texts: [`${"energy ".repeat(5 - i)}end`] }));
    const { useCase } = setUp(documents);
    const page = await useCase.execute(input({ query: "energy", limit: 2, offset: 2 }));
    expect(page.totalCount).toBe(5);
    expect(page.results.map((result) => result.documentId)).toEqual([documents[2].id, documents[3].id]);
    expect(page.results.map((result) => result.relevanceScore)).toEqual([0.6, 0.4]);
    expect((await useCase.execute(input({ query: "energy", offset: 10 }))).results).toEqual([]);
  });

  it("applies the scope: the user's processed documents of the course, of the types and tags asked for", async () => {
    const mine = aDocument({ tags: ["exam"], documentType: "HANDOUT", texts: ["cell"] });
    const { useCase, search } = setUp([
      mine,
      aDocument({ userId: "someone-else", texts: ["cell cell cell"] }),
      aDocument({ courseId: "other-course", texts: ["cell"] }),
      aDocument({ processed: false, texts: ["cell"] }),
      aDocument({ tags: ["draft"], documentType: "PDF", texts: ["cell"] }),
    ]);
    const all = await useCase.execute(input());
    expect(all.totalCount).toBe(2);
    const filtered = await useCase.execute(input({ documentTypes: ["handout"], tags: ["exam", " exam ", ""] }));
    expect(filtered.results.map((result) => result.documentId)).toEqual([mine.id]);
    expect((await useCase.execute(input({ tags: ["missing"] }))).totalCount).toBe(0);
    expect(search.calls).toContain("keyword:all");
  });

  it("relaxes to any word of the query when no document holds all of them", async () => {
    const document = aDocument({ texts: ["The ocean is deep."] });
    const { useCase, search } = setUp([document]);
    const answer = await useCase.execute(input({ query: "ocean volcano" }));
    expect(answer.results.map((result) => result.documentId)).toEqual([document.id]);
    expect(search.calls.slice(0, 3)).toEqual(["keyword:all", "keyword:any", "describe:any"]);
  });

  it("asks for suggestions with the best results' chunks", async () => {
    const document = aDocument({ texts: ["A cell: cells and cellular membranes"] });
    const { useCase, search } = setUp([document]);
    const answer = await useCase.execute(input({ query: "cell" }));
    expect(answer.suggestions).toEqual(["cells", "cellular"]);
    expect(search.calls).toContain(`suggestions:${document.id}-c0`);
  });

  it("reports a failure of the store as SEARCH_FAILED", async () => {
    const { useCase, search } = setUp([]);
    search.keywordRanking = async () => {
      throw new Error("connection reset");
    };
    const error = await appErrorOf(useCase.execute(input()));
    expect([error.kind, error.code, error.message]).toEqual(["internal", "SEARCH_FAILED", "Document search failed"]);
    expect(error.cause).toEqual(new Error("connection reset"));
  });
});

describe("SearchDocuments: semantic and hybrid", () => {
  const plants = () => aDocument({ title: "Photosynthesis", texts: ["War and kings.", "A plant turns light into sugar."] });
  const cells = () => aDocument({ title: "Cells", texts: ["The cell membrane and its energy."] });
  const history = () => aDocument({ title: "History", texts: ["The revolution against the king."] });

  it("ranks by the cosine similarity of each document's most similar chunk, and says semantic ran", async () => {
    const plant = plants();
    const provider = new VocabularyEmbeddings();
    const { useCase, search } = setUp([plant, cells(), history()], provider);
    const answer = await useCase.execute(input({ query: "light for plants", searchType: "semantic" }));
    expect(answer.searchType).toBe("semantic");
    expect(provider.embedded).toEqual([["light for plants"]]);
    // Query (light, plant) against the chunk (plant, light, sugar): 2 / (√2 · √3).
    expect(answer.results.map((result) => [result.documentId, result.relevanceScore, result.page])).toEqual([[plant.id, 0.8165, 2]]);
    expect(answer.totalCount).toBe(1);
    expect(search.calls).toEqual(["dimensions", "semantic", "describe:any", `suggestions:${plant.id}-c1`]);
  });

  it("fuses the keyword and semantic rankings by reciprocal rank (hybrid)", async () => {
    // Keyword "energy": both once, the newer handout first; semantic: cells (1 of 3 words) before the handout (1 of 4).
    const cell = cells();
    const handout = aDocument({ title: "Handout", texts: ["Light energy, light, light."] });
    const { useCase } = setUp([cell, handout, history()]);
    const answer = await useCase.execute(input({ query: "energy", searchType: "hybrid" }));
    expect(answer.searchType).toBe("hybrid");
    const expected = reciprocalRankFusion([
      [handout.id, cell.id],
      [cell.id, handout.id],
    ]);
    expect(answer.results.map((result) => result.documentId)).toEqual(expected.map((item) => item.id));
    expect(answer.results.map((result) => result.relevanceScore)).toEqual(
      expected.map((item) => Math.round((item.score / maxFusedScore(2)) * 10_000) / 10_000),
    );
    expect(answer.totalCount).toBe(2);
  });

  it("counts documents found by either method in a hybrid search, best of both first", async () => {
    const both = aDocument({ texts: ["cell membrane, cell membrane"] });
    const keywordOnly = aDocument({ texts: ["cell membrane"], embedded: false });
    const semanticOnly = aDocument({ texts: ["membranes everywhere"] });
    const { useCase } = setUp([both, keywordOnly, semanticOnly]);
    const answer = await useCase.execute(input({ query: "cell membrane", searchType: "hybrid", limit: 2 }));
    expect(answer.totalCount).toBe(3);
    expect(answer.results[0].documentId).toBe(both.id);
    expect(answer.results[0].relevanceScore).toBe(1);
    expect(answer.results).toHaveLength(2);
  });

  it("runs keyword, and says so, without an embedding provider", async () => {
    const cell = cells();
    const { useCase, search } = setUp([cell], null);
    for (const searchType of ["semantic", "hybrid"]) {
      const answer = await useCase.execute(input({ query: "membrane", searchType }));
      expect(answer.searchType).toBe("keyword");
      expect(answer.results.map((result) => [result.documentId, result.relevanceScore])).toEqual([[cell.id, 1]]);
    }
    expect(search.calls).not.toContain("semantic");
  });

  it("runs keyword without asking the provider when no chunk in scope was embedded by its model", async () => {
    const provider = new VocabularyEmbeddings("another-model");
    const { useCase, search } = setUp([cells(), aDocument({ texts: ["cell"], embedded: false })], provider);
    const answer = await useCase.execute(input({ query: "cell", searchType: "semantic" }));
    expect(answer.searchType).toBe("keyword");
    expect(answer.totalCount).toBe(2);
    expect(provider.embedded).toEqual([]);
    expect(search.calls).not.toContain("semantic");
  });

  it("fails with the provider's error when embedding the query fails", async () => {
    const failure = new AppError("upstream", "EMBEDDING_FAILED", "Embedding failed (vocabulary-1): The AI service failed (HTTP 500)");
    const { useCase } = setUp([cells()], new VocabularyEmbeddings("vocabulary-1", failure));
    expect(await appErrorOf(useCase.execute(input({ searchType: "hybrid" })))).toBe(failure);
  });
});

describe("prepareChunks", () => {
  const pages = [
    { number: 1, text: "Light and plants.", startOffset: 0 },
    { number: 2, text: "", startOffset: 19 },
    { number: 3, text: "Cell energy.", startOffset: 21 },
  ];

  it("chunks the pages without embeddings when no provider is configured", async () => {
    expect(await prepareChunks(pages, null)).toEqual([
      { page: 1, position: 0, text: "Light and plants.", startOffset: 0, endOffset: 17, embedding: null, embeddingModel: null },
      { page: 3, position: 1, text: "Cell energy.", startOffset: 21, endOffset: 33, embedding: null, embeddingModel: null },
    ]);
  });

  it("embeds every chunk in one call, stores normalised vectors and the model", async () => {
    const provider = new VocabularyEmbeddings();
    const chunks = await prepareChunks(pages, provider);
    expect(provider.embedded).toEqual([["Light and plants.", "Cell energy."]]);
    expect(chunks.map((chunk) => chunk.embeddingModel)).toEqual(["vocabulary-1", "vocabulary-1"]);
    expect(chunks[0].embedding).toEqual(vectorOf("Light and plants."));
    expect(Math.hypot(...(chunks[1].embedding ?? []))).toBeCloseTo(1, 12);
    expect(await prepareChunks([], provider)).toEqual([]);
    expect(provider.embedded).toHaveLength(1);
  });

  it("fails as upstream on a wrong number of vectors or an empty vector", async () => {
    const short: EmbeddingProvider = { model: "m", embed: async () => [[1]] };
    expect(await refusal(() => prepareChunks(pages, short))).toEqual(expect.objectContaining({ kind: "upstream", code: "EMBEDDING_FAILED" }));
    const zeros: EmbeddingProvider = { model: "m", embed: async (texts) => texts.map(() => [0, 0]) };
    expect(await refusal(() => prepareChunks(pages, zeros))).toEqual(expect.objectContaining({ kind: "upstream", code: "EMBEDDING_FAILED" }));
  });
});
