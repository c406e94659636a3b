import { createServer, type IncomingMessage, type Server } from "node:http";
import { courses, documents, study } from "@study/contracts";
import { bindUnaryHandlers, startGrpcServer, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger, verifyInternalRequest } from "@study/platform";
import { checkAgainstDocument } from "@study/testkit";
import { startRouteHarness, startStandInGateway, type StandInGateway } from "./route-harness";
import type { ServiceClients } from "../../src/clients";
import { documentJson, documentRoutes, searchPage, searchTypeJson, type DocumentSettings } from "../../src/routes/documents";
import { sourceJson } from "../../src/routes/study-material";

/**
 * The documents routes against in-process stand-ins: one gRPC server playing the documents, courses and study
 * services, and an HTTP server playing the documents service's internal upload endpoint. Every answer is
 * checked against the routes' own OpenAPI document (the test kit's client), as the end-to-end tests do.
 */

const logger = createLogger("test", "silent");
const SECRET = "u".repeat(32);
const USER_ID = "user-1";
const COURSE_ID = "course-1";
const DOC_ID = "0190f3c1-7d2a-7c4e-9b1a-3f2d4c5e6a7b";
const created = new Date("2026-11-20T10:00:00.000Z");

function documentOf(overrides: Partial<documents.Document> = {}): documents.Document {
  return {
    id: DOC_ID,
    userId: USER_ID,
    courseId: COURSE_ID,
    title: "Photosynthesis",
    fileName: "photosynthesis.pdf",
    fileSize: 2048,
    mimeType: "application/pdf",
    filePath: `documents/${USER_ID}/photosynthesis.pdf`,
    documentType: documents.DocumentType.DOCUMENT_TYPE_PDF,
    tags: ["biology"],
    processed: false,
    createdAt: created,
    updatedAt: created,
    format: "PDF",
    status: documents.ProcessingStatus.PROCESSING_STATUS_PENDING,
    pageCount: 0,
    wordCount: 0,
    pages: [],
    ...overrides,
  };
}

const processedDocument = documentOf({
  processed: true,
  status: documents.ProcessingStatus.PROCESSING_STATUS_COMPLETED,
  extractedText: "Light reactions.Calvin cycle.",
  author: "A. Botanist",
  pageCount: 2,
  wordCount: 4,
  pages: [
    { number: 1, startOffset: 0, endOffset: 16, ocr: false },
    { number: 2, startOffset: 16, endOffset: 29, ocr: true },
  ],
});

/** What the stand-ins received, and what they answer next. */
const calls = new Map<string, unknown[]>();
const record = (name: string, request: unknown) => calls.set(name, [...(calls.get(name) ?? []), request]);
let documentTextAnswer: () => Promise<documents.GetDocumentTextResponse>;
let searchAnswer: (request: documents.SearchDocumentsRequest) => Promise<documents.SearchDocumentsResponse>;

/**
 * The study stand-in reads the document as the study service does (the documents service's answer: its text, or its
 * refusal, passed on) and answers with the title it read; it records a generation only once the read succeeded.
 */
async function studyReadsDocument(): Promise<study.SourceTitle[]> {
  const text = await documentTextAnswer();
  return [{ id: text.documentId, title: text.title }];
}

/** The documents service's internal upload endpoint: checks the signed user and answers like libs/storage's upload server. */
let uploadAnswer: (path: string) => { status: number; body: unknown };
const uploads: { path: string; userId: string | null; authorization?: string; bytes: number }[] = [];

function startUploadEndpoint(): Promise<Server> {
  const server = createServer((request: IncomingMessage, response) => {
    let bytes = 0;
    request.on("data", (chunk: Buffer) => (bytes += chunk.length));
    request.on("end", () => {
      const path = request.url ?? "";
      uploads.push({
        path,
        userId: verifyInternalRequest(SECRET, request.headers, { method: request.method ?? "", path }),
        authorization: request.headers.authorization,
        bytes,
      });
      const { status, body } = uploadAnswer(path);
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

async function startServices(): Promise<RunningGrpcServer> {
  return startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: documents.DocumentsServiceService,
        implementation: bindUnaryHandlers(logger, documents.DocumentsServiceService, {
          async listDocuments(request) {
            record("listDocuments", request);
            return { documents: [documentOf()], page: { limit: 5, offset: 0, total: 1, hasMore: false } };
          },
          async getDocument(request) {
            record("getDocument", request);
            if (request.documentId !== DOC_ID || request.courseId !== COURSE_ID) throw AppError.notFound("Document");
            return { document: processedDocument };
          },
          async deleteDocument(request) {
            record("deleteDocument", request);
            return {};
          },
          async searchDocuments(request) {
            record("searchDocuments", request);
            return searchAnswer(request);
          },
          async getDocumentText(request) {
            record("getDocumentText", request);
            return documentTextAnswer();
          },
        }),
      },
      {
        definition: courses.CoursesServiceService,
        implementation: bindUnaryHandlers(logger, courses.CoursesServiceService, {
          async checkCourseOwnership(request) {
            record("checkCourseOwnership", request);
            return { course: { id: request.courseId, name: "Biology 101" } };
          },
        }),
      },
      {
        definition: study.StudyServiceService,
        implementation: bindUnaryHandlers(logger, study.StudyServiceService, {
          async generateFlashcards(request) {
            const read = await studyReadsDocument();
            record("generateFlashcards", request);
            return {
              flashcardSet: study.FlashcardSet.fromPartial({ id: "set-1", cardCount: request.cardCount || 10 }),
              created: true,
              documents: read,
            };
          },
          async generateQuiz(request) {
            const read = await studyReadsDocument();
            record("generateQuiz", request);
            const questions = Array.from({ length: request.questionCount || 10 }, (_, i) => ({ id: `q${i}` }));
            return { quiz: study.Quiz.fromPartial({ id: "quiz-1", questions }), created: true, documents: read };
          },
          async generateStudyGuide(request) {
            const read = await studyReadsDocument();
            record("generateStudyGuide", request);
            return {
              studyGuide: study.StudyGuide.fromPartial({ id: "guide-1", sections: [{ id: "s1" }, { id: "s2" }, { id: "s3" }] }),
              created: true,
              documents: read,
            };
          },
        }),
      },
    ],
  });
}

/** The routes mounted as the gateway mounts them, with a stand-in session (any Bearer = USER_ID). */
const startGateway = (clients: ServiceClients, settings: DocumentSettings) =>
  startRouteHarness(documentRoutes(clients, settings), { userId: USER_ID, logger });

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe("the documents routes", () => {
  let uploadEndpoint: Server;
  let gateway: StandInGateway;
  let api: StandInGateway["api"];
  const settings = (uploadUrl: string | undefined): DocumentSettings => ({
    DOCUMENTS_UPLOAD_URL: uploadUrl,
    INTERNAL_UPLOAD_SECRET: SECRET,
    UPLOAD_IDLE_TIMEOUT_MS: 10_000,
    UPLOAD_REQUEST_TIMEOUT_MS: 20_000,
    STUDY_GENERATION_DEADLINE_MS: 10_000,
  });

  /** A multipart upload, its answer checked against the document like every other answer. */
  async function upload(path: string, fields: Record<string, string>, base = gateway.url) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append("file", new Blob([Buffer.from("%PDF-1.7 test")], { type: "application/pdf" }), "photosynthesis.pdf");
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { authorization: "Bearer secret-session" }, body: form });
    const body = (await response.json()) as Record<string, unknown>;
    await checkAgainstDocument(base, "POST", path, response, body);
    return { status: response.status, body };
  }

  beforeAll(async () => {
    uploadEndpoint = await startUploadEndpoint();
    const uploadUrl = `http://127.0.0.1:${(uploadEndpoint.address() as AddressInfo).port}`;
    gateway = await startStandInGateway(await startServices(), (clients) => documentRoutes(clients, settings(uploadUrl)), {
      userId: USER_ID,
      logger,
    });
    api = gateway.api;
  });
  afterAll(async () => {
    await gateway.stop();
    await close(uploadEndpoint);
  });
  beforeEach(() => {
    calls.clear();
    uploads.length = 0;
  });

  const token = "secret-session";

  it("streams an upload to the documents service as the signed-in user and answers the document at top level", async () => {
    uploadAnswer = () => ({ status: 201, body: { document: documents.Document.toJSON(documentOf()) } });
    const { status, body } = await upload("/api/documents/upload", { courseId: COURSE_ID, title: "Photosynthesis", tags: '["biology"]' });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      message: "Document uploaded; text extraction started",
      document: expect.objectContaining({
        id: DOC_ID,
        courseId: COURSE_ID,
        documentType: "PDF",
        tags: ["biology"],
        processed: false,
        status: "PENDING",
        extractedText: null,
        failureReason: null,
        calendarEventsCreated: null,
        createdAt: "2026-11-20T10:00:00.000Z",
      }),
      duplicateOf: null,
    });
    expect(Object.keys(body.document as object)).not.toContain("pages");
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ path: "/uploads/documents", userId: USER_ID, authorization: undefined });
    expect(uploads[0].bytes).toBeGreaterThan(0);
  });

  it("names the caller's earlier document of the same file, as the documents service found it", async () => {
    const earlier = "0193a7a4-1c1e-7b5e-9f0e-4c1a2b3c4d5e";
    uploadAnswer = () => ({ status: 201, body: { document: documents.Document.toJSON(documentOf()), duplicateOf: earlier } });
    const { status, body } = await upload("/api/documents/upload", { courseId: COURSE_ID });
    expect([status, body.duplicateOf]).toEqual([200, earlier]);
    expect(body.message).toBe(`Document uploaded; text extraction started. The same file was uploaded before as document ${earlier}`);
  });

  it("answers a syllabus processed, with the number of calendar events made from it", async () => {
    uploadAnswer = () => ({
      status: 201,
      body: {
        document: documents.Document.toJSON({
          ...processedDocument,
          documentType: documents.DocumentType.DOCUMENT_TYPE_SYLLABUS,
          calendarEventsCreated: 3,
        }),
        eventsCreated: 3,
      },
    });
    const { status, body } = await upload("/api/documents/upload-syllabus", { courseId: COURSE_ID, timeZone: "Europe/Berlin" });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      message: "Syllabus processed: 3 calendar events created",
      document: { documentType: "SYLLABUS", processed: true, status: "COMPLETED", calendarEventsCreated: 3, pages: processedDocument.pages },
    });
    expect(uploads[0]).toMatchObject({ path: "/uploads/syllabus", userId: USER_ID });
  });

  it("passes the service's refusal on in the error envelope (UNEXPECTED_FILE, a syllabus over the deadline, 404)", async () => {
    uploadAnswer = () => ({
      status: 400,
      body: {
        error: {
          kind: "validation",
          code: "UNEXPECTED_FILE",
          message: "Not a supported document",
          details: [{ field: "file", message: "is not supported" }],
        },
      },
    });
    expect(await upload("/api/documents/upload", { courseId: COURSE_ID })).toEqual({
      status: 400,
      body: { success: false, error: "Not a supported document", code: "UNEXPECTED_FILE", details: [{ field: "file", message: "is not supported" }] },
    });
    uploadAnswer = () => ({
      status: 400,
      body: { error: { kind: "precondition", code: "SYLLABUS_TIMEOUT", message: "took too long", details: [] } },
    });
    expect(await upload("/api/documents/upload-syllabus", { courseId: COURSE_ID })).toMatchObject({
      status: 400,
      body: { code: "SYLLABUS_TIMEOUT" },
    });
    uploadAnswer = () => ({ status: 404, body: { error: { kind: "not_found", code: "NOT_FOUND", message: "Course not found", details: [] } } });
    expect(await upload("/api/documents/upload", { courseId: "someone-elses" })).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });

  it("answers 503 when the documents upload endpoint is not configured", async () => {
    const unconfigured = await startGateway(gateway.clients, settings(undefined));
    try {
      expect(await upload("/api/documents/upload", { courseId: COURSE_ID }, unconfigured.url)).toMatchObject({
        status: 503,
        body: { code: "SERVICE_UNAVAILABLE" },
      });
    } finally {
      await close(unconfigured.server);
    }
  });

  it("lists a course's documents with pagination; courseId is required", async () => {
    const missing = await api("GET", "/api/documents", { token });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "courseId", message: "is required" }] });
    expect((await api("GET", `/api/documents?courseId=${COURSE_ID}&documentType=SPREADSHEET`, { token })).body).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "documentType" }],
    });

    const { status, body } = await api("GET", `/api/documents?courseId=${COURSE_ID}&documentType=PDF&limit=5`, { token });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, message: "Documents retrieved", pagination: { limit: 5, offset: 0, total: 1, hasMore: false } });
    expect(body.data).toHaveLength(1);
    expect(calls.get("listDocuments")).toEqual([
      { userId: USER_ID, courseId: COURSE_ID, documentType: documents.DocumentType.DOCUMENT_TYPE_PDF, page: { limit: 5, offset: 0 } },
    ]);
  });

  it("gets a document with its text and pages, 404 for another course; deletes one", async () => {
    const { status, body } = await api("GET", `/api/documents/${DOC_ID}?courseId=${COURSE_ID}`, { token });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      success: true,
      data: {
        id: DOC_ID,
        processed: true,
        extractedText: "Light reactions.Calvin cycle.",
        author: "A. Botanist",
        pageCount: 2,
        pages: processedDocument.pages,
      },
    });
    expect((await api("GET", `/api/documents/${DOC_ID}?courseId=other-course`, { token })).status).toBe(404);
    expect((await api("GET", `/api/documents/${DOC_ID}`, { token })).status).toBe(400);

    const deleted = await api("DELETE", `/api/documents/${DOC_ID}?courseId=${COURSE_ID}`, { token });
    expect(deleted).toMatchObject({ status: 200, body: { success: true, message: "Document deleted" } });
    expect(calls.get("deleteDocument")).toEqual([{ userId: USER_ID, courseId: COURSE_ID, documentId: DOC_ID }]);
  });

  it("searches with the parsed parameters and says which method ran", async () => {
    searchAnswer = async () => ({
      results: [
        {
          documentId: DOC_ID,
          title: "Photosynthesis",
          documentType: documents.DocumentType.DOCUMENT_TYPE_PDF,
          relevanceScore: 0.42,
          snippet: "…the <mark>Calvin</mark> cycle…",
          highlights: ["Calvin"],
          author: "A. Botanist",
          pageCount: 2,
          wordCount: 4,
          tags: ["biology"],
          createdAt: created,
          page: 2,
        },
      ],
      totalCount: 1,
      suggestions: ["calvin cycle"],
      searchType: documents.SearchType.SEARCH_TYPE_KEYWORD,
    });
    const { status, body } = await api(
      "GET",
      `/api/documents/search?query=calvin&courseId=${COURSE_ID}&documentTypes=PDF,%20HANDOUT&tags=biology,exam&limit=10&offset=5&searchType=semantic`,
      { token },
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      results: [
        {
          documentId: DOC_ID,
          title: "Photosynthesis",
          documentType: "PDF",
          relevanceScore: 0.42,
          snippet: "…the <mark>Calvin</mark> cycle…",
          highlights: ["Calvin"],
          page: 2,
          metadata: { author: "A. Botanist", pageCount: 2, wordCount: 4, tags: ["biology"], createdAt: "2026-11-20T10:00:00.000Z" },
        },
      ],
      totalCount: 1,
      suggestions: ["calvin cycle"],
      // semantic was asked for; the service ran keyword (no embedding provider) and the answer says so
      searchType: "keyword",
    });
    expect(calls.get("searchDocuments")).toEqual([
      {
        userId: USER_ID,
        courseId: COURSE_ID,
        query: "calvin",
        documentTypes: [documents.DocumentType.DOCUMENT_TYPE_PDF, documents.DocumentType.DOCUMENT_TYPE_HANDOUT],
        tags: ["biology", "exam"],
        page: { limit: 10, offset: 5 },
        searchType: documents.SearchType.SEARCH_TYPE_SEMANTIC,
      },
    ]);
  });

  it("refuses search parameters the request cannot carry, and passes the service's range refusals on", async () => {
    const search = (params: string) => api("GET", `/api/documents/search?query=x&courseId=${COURSE_ID}&${params}`, { token });
    expect((await search("limit=abc")).body).toMatchObject({ code: "INVALID_LIMIT", details: [{ field: "limit" }] });
    expect((await search("limit=0")).body).toMatchObject({ code: "INVALID_LIMIT" });
    expect((await search("offset=1.5")).body).toMatchObject({ code: "INVALID_OFFSET", details: [{ field: "offset" }] });
    expect((await search("limit=1&limit=2")).body).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "limit", message: "must be given once" }],
    });
    expect((await search("documentTypes=PDF,BOOK")).body).toMatchObject({ code: "VALIDATION_ERROR" });
    expect((await search("searchType=fuzzy")).body).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "searchType" }] });
    expect((await api("GET", `/api/documents/search?courseId=${COURSE_ID}`, { token })).body).toMatchObject({
      details: [{ field: "query", message: "is required" }],
    });
    expect(calls.get("searchDocuments")).toBeUndefined();

    searchAnswer = async () => {
      throw new AppError("validation", "INVALID_LIMIT", "limit must be an integer between 1 and 100", {
        details: [{ field: "limit", message: "must be an integer between 1 and 100" }],
      });
    };
    const overLimit = await search("limit=101");
    expect(overLimit).toMatchObject({ status: 400, body: { code: "INVALID_LIMIT" } });
    expect(calls.get("searchDocuments")).toEqual([
      expect.objectContaining({ page: { limit: 101, offset: 0 }, searchType: documents.SearchType.SEARCH_TYPE_UNSPECIFIED }),
    ]);
  });

  it("generates every requested type from the document's pages, with the options", async () => {
    documentTextAnswer = async () => ({
      documentId: DOC_ID,
      courseId: COURSE_ID,
      title: "Photosynthesis",
      pages: [
        { number: 1, text: "Light reactions." },
        { number: 2, text: "Calvin cycle." },
      ],
    });
    const { status, body } = await api("POST", `/api/documents/${DOC_ID}/generate`, {
      token,
      body: { types: ["flashcards", "quiz", "study-guide"], options: { difficulty: "HARD", questionCount: 7, focusAreas: ["Calvin cycle"] } },
    });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: true,
      results: {
        flashcards: { id: "set-1", cardCount: 7 },
        quiz: { id: "quiz-1", questionCount: 7 },
        "study-guide": { id: "guide-1", sectionCount: 3 },
      },
      message: 'Generated flashcards, a quiz and a study guide from "Photosynthesis"',
    });
    // The gateway reads neither the document nor its course: the study service does, from the id.
    expect(calls.get("getDocumentText")).toBeUndefined();
    expect(calls.get("checkCourseOwnership")).toBeUndefined();
    const generation = {
      userId: USER_ID,
      courseId: "",
      noteIds: [],
      documentIds: [DOC_ID],
      difficulty: study.Difficulty.DIFFICULTY_HARD,
      focusAreas: ["Calvin cycle"],
    };
    expect(calls.get("generateFlashcards")).toEqual([{ generation, cardCount: 7 }]);
    expect(calls.get("generateQuiz")).toEqual([{ generation, questionCount: 7 }]);
    expect(calls.get("generateStudyGuide")).toEqual([{ generation }]);

    const quizOnly = await api("POST", `/api/documents/${DOC_ID}/generate`, { token, body: { types: ["quiz"] } });
    expect(quizOnly.body).toEqual({
      success: true,
      results: { quiz: { id: "quiz-1", questionCount: 10 } },
      message: 'Generated a quiz from "Photosynthesis"',
    });
    expect(calls.get("generateQuiz")).toHaveLength(2);
    expect(calls.get("generateQuiz")?.[1]).toEqual({
      generation: { ...generation, difficulty: study.Difficulty.DIFFICULTY_MEDIUM, focusAreas: [] },
      questionCount: 0,
    });
    expect(calls.get("generateFlashcards")).toHaveLength(1);
  });

  it("refuses invalid generation requests before asking study to read the document", async () => {
    const generate = (body: unknown) => api("POST", `/api/documents/${DOC_ID}/generate`, { token, body });
    const fieldsOf = async (body: unknown) => {
      const answer = await generate(body);
      expect(answer.status).toBe(400);
      return (answer.body as { details: { field: string }[] }).details.map((detail) => detail.field);
    };
    expect(await fieldsOf({})).toEqual(["types"]);
    expect(await fieldsOf({ types: [] })).toEqual(["types"]);
    expect(await fieldsOf({ types: ["quiz", "quiz"] })).toEqual(["types"]);
    expect(await fieldsOf({ types: ["summary"] })).toEqual(["types.0"]);
    expect(await fieldsOf({ types: ["quiz"], options: { questionCount: 51 } })).toEqual(["options.questionCount"]);
    expect(await fieldsOf({ types: ["quiz"], options: { difficulty: "INSANE" } })).toEqual(["options.difficulty"]);
    expect(await fieldsOf({ types: ["quiz"], options: { focusAreas: Array.from({ length: 11 }, (_, i) => `topic ${i}`) } })).toEqual([
      "options.focusAreas",
    ]);
    expect(await fieldsOf({ types: ["quiz"], options: { focusAreas: ["x".repeat(101)] } })).toEqual(["options.focusAreas.0"]);
    expect(await fieldsOf({ types: ["quiz"], cardCount: 3 })).toEqual(["cardCount"]);
    expect(calls.get("getDocumentText")).toBeUndefined();
    expect(calls.get("generateFlashcards") ?? calls.get("generateQuiz") ?? calls.get("generateStudyGuide")).toBeUndefined();
  });

  it("answers 400 DOCUMENT_NOT_PROCESSED for a document whose text is not extracted, and 404 for another user's", async () => {
    documentTextAnswer = async () => {
      throw new AppError("precondition", "DOCUMENT_NOT_PROCESSED", "The document is still being processed");
    };
    const pending = await api("POST", `/api/documents/${DOC_ID}/generate`, { token, body: { types: ["flashcards"] } });
    expect(pending).toMatchObject({ status: 400, body: { code: "DOCUMENT_NOT_PROCESSED", error: "The document is still being processed" } });
    documentTextAnswer = async () => {
      throw AppError.notFound("Document");
    };
    expect((await api("POST", `/api/documents/${DOC_ID}/generate`, { token, body: { types: ["flashcards"] } })).status).toBe(404);
    expect(calls.get("generateFlashcards")).toBeUndefined();
  });

  it("answers 401 without a session", async () => {
    expect((await api("GET", `/api/documents?courseId=${COURSE_ID}`)).status).toBe(401);
  });
});

describe("document answers in REST shapes", () => {
  it("writes the status without its prefix, unset optional fields as null, and pages only with the text", () => {
    const pending = documentJson(documentOf({ status: documents.ProcessingStatus.PROCESSING_STATUS_UNSPECIFIED, pages: [] }));
    expect(pending).toMatchObject({ status: "PENDING", description: null, author: null, extractedText: null, calendarEventsCreated: null });
    expect(pending).not.toHaveProperty("pages");
    const failed = documentJson(documentOf({ status: documents.ProcessingStatus.PROCESSING_STATUS_FAILED, failureReason: "The PDF is encrypted" }));
    expect(failed).toMatchObject({ status: "FAILED", processed: false, failureReason: "The PDF is encrypted" });
    expect(documentJson(processedDocument).pages).toEqual(processedDocument.pages);
  });

  it("names the search method in lower case; an unspecified one is keyword", () => {
    expect(searchTypeJson(documents.SearchType.SEARCH_TYPE_HYBRID)).toBe("hybrid");
    expect(searchTypeJson(documents.SearchType.SEARCH_TYPE_SEMANTIC)).toBe("semantic");
    expect(searchTypeJson(documents.SearchType.SEARCH_TYPE_UNSPECIFIED)).toBe("keyword");
  });

  it("links generated items to their note's moment or their document's page; null once the source is gone", () => {
    expect(sourceJson({ noteId: "note-1", startTime: 12.5 })).toEqual({ noteId: "note-1", startTime: 12.5 });
    expect(sourceJson({ documentId: DOC_ID, page: 2 })).toEqual({ documentId: DOC_ID, page: 2 });
    expect(sourceJson({ documentId: DOC_ID })).toEqual({ documentId: DOC_ID, page: null });
    expect(sourceJson({ page: 2 })).toBeNull();
    expect(sourceJson(undefined)).toBeNull();
  });

  it("leaves limit and offset to the service's defaults when absent, and forwards integers it may refuse", () => {
    expect(searchPage(undefined, undefined)).toEqual({ limit: 0, offset: 0 });
    expect(searchPage("100", "-1")).toEqual({ limit: 100, offset: -1 });
    expect(() => searchPage("99999999999", undefined)).toThrow(expect.objectContaining({ code: "INVALID_LIMIT" }));
    expect(() => searchPage("5", "1e3")).toThrow(expect.objectContaining({ code: "INVALID_OFFSET" }));
  });
});
