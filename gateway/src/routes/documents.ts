import { documents as api, type study } from "@study/contracts";
import { AppError, required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendData, sendMessage, withShortfall } from "../http/envelope";
import { idParams } from "../http/params";
import { intParam, MAX_INT32, singleParam } from "../http/query";
import { createUploadForwarder, UPLOAD_TIMEOUT_DESCRIPTION } from "../http/upload-forwarder";
import { forwardFileRequest } from "./files";
import { iso, paginationJson, paginationSchema, restEnum } from "./shared/mappers";
import { difficultySchema, difficultyToProto } from "./study-material";

export interface DocumentSettings {
  DOCUMENTS_UPLOAD_URL?: string;
  INTERNAL_UPLOAD_SECRET?: string;
  UPLOAD_IDLE_TIMEOUT_MS: number;
  UPLOAD_REQUEST_TIMEOUT_MS: number;
  /** Deadline of the study service's generation calls. */
  STUDY_GENERATION_DEADLINE_MS: number;
}

/** The spec's documentType values: a file format, or what the document is for. */
const documentType = restEnum(api.DocumentType, "DOCUMENT_TYPE");
const documentTypeSchema = z.enum(documentType.names, { message: `must be one of ${documentType.names.join(", ")}` });

const searchType = restEnum(api.SearchType, "SEARCH_TYPE", "lower");
const processingStatus = restEnum(api.ProcessingStatus, "PROCESSING_STATUS");
export const GENERATION_TYPES = ["flashcards", "quiz", "study-guide"] as const;
type GenerationType = (typeof GENERATION_TYPES)[number];

/** Most focus areas one generation takes (the study service's limit, as its GenerationRequest says). */
const MAX_FOCUS_AREAS = 10;

const courseIdParam = singleParam().trim().min(1, "is required").max(100).describe("Required: the document's course");

const listQuery = z.object({
  courseId: courseIdParam,
  documentType: documentTypeSchema.optional().describe("Only documents of this type"),
  limit: intParam(1, 100, 20),
  offset: intParam(0, MAX_INT32, 0),
});
const courseQuery = z.object({ courseId: courseIdParam });

/** A comma list of a query string, trimmed, empty entries dropped. */
const commaList = (description: string) =>
  singleParam()
    .optional()
    .transform((value) =>
      (value ?? "")
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .describe(description);

/**
 * The search parameters. Ranges and the query's length are the documents service's rules (it answers
 * VALIDATION_ERROR, INVALID_LIMIT, INVALID_OFFSET); the gateway reads the types the gRPC request carries.
 */
const searchQuery = z.object({
  query: singleParam().describe("Required: the words to search for, 1-500 characters (blank or longer: 400 VALIDATION_ERROR)"),
  courseId: courseIdParam,
  documentTypes: commaList(`Comma list of ${documentType.names.join(", ")} (default: every type)`).pipe(z.array(documentTypeSchema)),
  tags: commaList("Comma list of tags"),
  limit: singleParam().optional().describe("1-100, default 20 (else 400 INVALID_LIMIT)"),
  offset: singleParam().optional().describe("0 or more, default 0 (else 400 INVALID_OFFSET)"),
  searchType: z
    .enum(searchType.names, { message: `must be one of ${searchType.names.join(", ")}` })
    .optional()
    .describe("keyword (default), semantic or hybrid; the answer's searchType says which method ran"),
});

const generateBody = z.strictObject({
  types: z
    .array(z.enum(GENERATION_TYPES, { message: "must be one of flashcards, quiz, study-guide" }), "must be an array of types")
    .min(1, "must name at least one type")
    .refine((types) => new Set(types).size === types.length, "must not repeat a type"),
  options: z
    .strictObject({
      difficulty: difficultySchema.optional().describe("MEDIUM when omitted"),
      questionCount: z
        .number("must be a number")
        .int("must be an integer")
        .min(1, "must be at least 1")
        .max(50, "must be at most 50")
        .optional()
        .describe("Cards of the flashcard set and questions of the quiz; default 10"),
      focusAreas: z
        .array(
          z.string("must be a string").trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
          "must be an array of strings",
        )
        .max(MAX_FOCUS_AREAS, `must have at most ${MAX_FOCUS_AREAS} entries`)
        .optional()
        .describe("Topics to favour: passages that mention them come first"),
    })
    .optional(),
});

const pageSpanSchema = z
  .object({
    number: z.number().int().describe("1-based"),
    startOffset: z.number().int().describe("Where the page's text starts in extractedText (characters)"),
    endOffset: z.number().int().describe("Where it ends (exclusive)"),
    ocr: z.boolean().describe("The page's text came from OCR"),
  })
  .meta({ id: "DocumentPageSpan" });
const nullableString = z.string().nullable();
export const documentSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    fileName: z.string().describe("The original file name"),
    fileSize: z.number().int().describe("Bytes"),
    mimeType: z.string().describe("The content type of the detected format"),
    filePath: z.string().describe("The storage key of the file"),
    description: nullableString,
    courseId: z.string(),
    documentType: documentTypeSchema,
    tags: z.array(z.string()),
    processed: z.boolean().describe("True once the text is extracted and indexed; false while pending, processing or failed"),
    extractedText: nullableString.describe("Null in lists and until processed"),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    userId: z.string(),
    format: z
      .string()
      .describe("The file format decided from its bytes: PDF, DOC, DOCX, PPT, PPTX, XLS, XLSX, CSV, TXT, MD, RTF, JPEG, PNG, GIF, WEBP"),
    status: z.enum(processingStatus.names).describe("Where extraction stands"),
    failureReason: nullableString.describe("Why extraction failed (status FAILED)"),
    author: nullableString.describe("From the file's metadata, when it names one"),
    pageCount: z.number().int(),
    wordCount: z.number().int(),
    pages: z.array(pageSpanSchema).optional().describe("Where each page lies in extractedText; present with extractedText only"),
    calendarEventsCreated: z.number().int().nullable().describe("Calendar events made from a syllabus; null for other documents"),
  })
  .meta({ id: "Document" });

const searchResultSchema = z
  .object({
    documentId: z.string(),
    title: z.string(),
    documentType: documentTypeSchema,
    relevanceScore: z.number(),
    snippet: z.string().describe("The best passage, with the matched terms"),
    highlights: z.array(z.string()).describe("The matched terms as they appear in the snippet"),
    page: z.number().int().nullable().describe("The page the snippet comes from (null when the format has no pages)"),
    metadata: z.object({
      author: nullableString,
      pageCount: z.number().int(),
      wordCount: z.number().int(),
      tags: z.array(z.string()),
      createdAt: z.iso.datetime(),
    }),
  })
  .meta({ id: "DocumentSearchResult" });

const documentAnswer = (message: string) => z.object({ success: z.literal(true), document: documentSchema, message: z.string().describe(message) });
const searchAnswer = z.object({
  success: z.literal(true),
  results: z.array(searchResultSchema),
  totalCount: z.number().int().describe("Matches before limit and offset"),
  suggestions: z.array(z.string()).describe("Terms of the course's documents close to the query"),
  searchType: z
    .enum(searchType.names)
    .describe("The method that ran: keyword when semantic or hybrid was asked for and no embedding provider is configured"),
});
const generatedAnswer = z.object({
  success: z.literal(true),
  results: z
    .object({
      flashcards: z.object({ id: z.string(), cardCount: z.number().int() }).optional(),
      quiz: z.object({ id: z.string(), questionCount: z.number().int() }).optional(),
      "study-guide": z.object({ id: z.string(), sectionCount: z.number().int() }).optional(),
    })
    .describe("One entry per requested type: the material made (or the existing one for the same document content)"),
  message: z.string(),
});

/** The REST shape of a document: the spec's fields, then what extraction found (services/documents/README.md). */
export function documentJson(document: api.Document) {
  const status =
    document.status === api.ProcessingStatus.PROCESSING_STATUS_UNSPECIFIED ? api.ProcessingStatus.PROCESSING_STATUS_PENDING : document.status;
  return {
    id: document.id,
    title: document.title,
    fileName: document.fileName,
    fileSize: document.fileSize,
    mimeType: document.mimeType,
    filePath: document.filePath,
    description: document.description ?? null,
    courseId: document.courseId,
    documentType: documentType.toRest(document.documentType),
    tags: document.tags,
    processed: document.processed,
    extractedText: document.extractedText ?? null,
    createdAt: iso(document.createdAt, "Document.createdAt"),
    updatedAt: iso(document.updatedAt, "Document.updatedAt"),
    userId: document.userId,
    format: document.format,
    status: processingStatus.toRest(status),
    failureReason: document.failureReason ?? null,
    author: document.author ?? null,
    pageCount: document.pageCount,
    wordCount: document.wordCount,
    ...(document.extractedText === undefined
      ? {}
      : { pages: document.pages.map(({ number, startOffset, endOffset, ocr }) => ({ number, startOffset, endOffset, ocr })) }),
    calendarEventsCreated: document.calendarEventsCreated ?? null,
  };
}

/** `SEARCH_TYPE_HYBRID` → `hybrid`; an unspecified method is keyword (the service's default). */
export const searchTypeJson = (type: api.SearchType) => (type === api.SearchType.SEARCH_TYPE_UNSPECIFIED ? "keyword" : searchType.toRest(type));

export function documentSearchJson(response: api.SearchDocumentsResponse) {
  return {
    success: true as const,
    results: response.results.map((result) => ({
      documentId: result.documentId,
      title: result.title,
      documentType: documentType.toRest(result.documentType),
      relevanceScore: result.relevanceScore,
      snippet: result.snippet,
      highlights: result.highlights,
      page: result.page ?? null,
      metadata: {
        author: result.author ?? null,
        pageCount: result.pageCount,
        wordCount: result.wordCount,
        tags: result.tags,
        createdAt: iso(result.createdAt, "DocumentSearchResult.createdAt"),
      },
    })),
    totalCount: response.totalCount,
    suggestions: response.suggestions,
    searchType: searchTypeJson(response.searchType),
  };
}

/**
 * limit and offset of a document search, as the gRPC request carries them (int32, 0 meaning "the default").
 * A value that request cannot carry — not an integer, beyond int32, or a limit of 0, which would silently read
 * as the default — is refused here with the code the service gives for a value out of range.
 */
export function searchPage(limit: string | undefined, offset: string | undefined): { limit: number; offset: number } {
  const integer = (value: string | undefined) => {
    if (value === undefined || value.trim() === "") return 0;
    if (!/^[+-]?\d+$/.test(value.trim())) return null;
    const number = Number(value);
    return Math.abs(number) <= MAX_INT32 ? number : null;
  };
  const pageLimit = integer(limit);
  if (pageLimit === null || (pageLimit === 0 && limit !== undefined && limit.trim() !== "")) {
    const message = "must be an integer between 1 and 100";
    throw new AppError("validation", "INVALID_LIMIT", `limit ${message}`, { details: [{ field: "limit", message }] });
  }
  const pageOffset = integer(offset);
  if (pageOffset === null) {
    const message = "must be an integer of 0 or more";
    throw new AppError("validation", "INVALID_OFFSET", `offset ${message}`, { details: [{ field: "offset", message }] });
  }
  return { limit: pageLimit, offset: pageOffset };
}

/**
 * The generation request for one document of the caller: its id only. The study service reads its text from the
 * documents service as the caller (404 NOT_FOUND for another user's document, 400 DOCUMENT_NOT_PROCESSED while its
 * text is not extracted) and its course from the courses service; the material's course is the document's.
 */
export function documentGenerationRequest(
  userId: string,
  documentId: string,
  options: z.output<typeof generateBody>["options"],
): study.GenerationRequest {
  return {
    userId,
    courseId: "",
    noteIds: [],
    documentIds: [documentId],
    difficulty: difficultyToProto(options?.difficulty),
    focusAreas: options?.focusAreas ?? [],
  };
}

/** The document's title as the study service read it (every generation answers with the documents it read). */
function documentTitle(replies: { documents: study.SourceTitle[] }[]): string {
  return required(replies[0]?.documents[0], "document in a generation reply").title;
}

const GENERATED_NAMES: Record<GenerationType, string> = { flashcards: "flashcards", quiz: "a quiz", "study-guide": "a study guide" };

const uploadFields =
  "multipart/form-data, streamed to the documents service (never held in memory by the gateway). The format is decided by the " +
  "file's bytes (never its name or declared type): PDF, DOC, DOCX, TXT, RTF, MD, PPT, PPTX, JPG, JPEG, PNG, GIF, WEBP, XLS, XLSX, CSV; " +
  "at most 150 MB.";
const tagsField = "tags (a JSON array of strings, a comma list, or the field repeated)";
const tag = "Documents";
const documentNotFound = { description: "No such document of the caller in this course (NOT_FOUND)", schema: errorEnvelope };

/**
 * The documents endpoints: uploads are streamed to the documents service's internal HTTP endpoint (as media's
 * are), everything else is a gRPC call; generation sends the document's id to the study service, which reads it.
 */
export function documentRoutes(clients: ServiceClients, settings: DocumentSettings): RouteSpec[] {
  const forward = createUploadForwarder({
    targetUrl: settings.DOCUMENTS_UPLOAD_URL,
    secret: settings.INTERNAL_UPLOAD_SECRET,
    idleTimeoutMs: settings.UPLOAD_IDLE_TIMEOUT_MS,
    requestTimeoutMs: settings.UPLOAD_REQUEST_TIMEOUT_MS,
    // A syllabus is answered processed, possibly with its extracted text.
    maxAnswerBytes: 16 * 1024 * 1024,
  });
  const generationDeadline = { deadlineMs: settings.STUDY_GENERATION_DEADLINE_MS };

  return [
    route({
      method: "post",
      path: "/api/documents/upload",
      tag,
      accepts: "multipart/form-data",
      summary: "Upload a document (multipart: file, courseId, title?, description?, documentType?, tags?); its text is extracted in the background",
      description:
        `${uploadFields} Fields: courseId (required), title (1-255, default the file name), description, documentType (one of ` +
        `${documentType.names.join(", ")}; inferred from the content when absent), ${tagsField}. The answer comes at once with ` +
        "processed false and status PENDING; notifications tell when the text is extracted (processed true) or extraction failed " +
        "(status FAILED with failureReason).",
      auth: true,
      responses: {
        200: {
          description: "The stored document (top-level `document`, the spec's exception to the envelope)",
          schema: documentAnswer("What happened").extend({
            duplicateOf: z
              .string()
              .nullable()
              .describe(
                "The caller's earlier document uploaded with the same file (same SHA-256, in any course), or null. The upload is " +
                  "kept either way: uploading a file twice may be meant",
              ),
          }),
        },
        400: { description: "Not an accepted format (UNEXPECTED_FILE) or invalid fields (VALIDATION_ERROR)", schema: errorEnvelope },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
        413: { description: "The file is over 150 MB (FILE_TOO_LARGE); nothing is kept", schema: errorEnvelope },
        503: {
          description: "The documents service's upload endpoint is not configured or not reachable (SERVICE_UNAVAILABLE)",
          schema: errorEnvelope,
        },
        504: { description: UPLOAD_TIMEOUT_DESCRIPTION, schema: errorEnvelope },
      },
      async handler({ userId, req, res }) {
        const { body } = await forward(req, res, "/uploads/documents", userId);
        const document = api.Document.fromJSON(body.document);
        const duplicateOf = typeof body.duplicateOf === "string" ? body.duplicateOf : null;
        const message = duplicateOf
          ? `Document uploaded; text extraction started. The same file was uploaded before as document ${duplicateOf}`
          : "Document uploaded; text extraction started";
        res.status(200).json({ success: true, document: documentJson(document), message, duplicateOf });
      },
    }),
    route({
      method: "post",
      path: "/api/documents/upload-syllabus",
      tag,
      accepts: "multipart/form-data",
      summary: "Upload a course syllabus (multipart: file, courseId, title?, description?, timeZone?): its dates become calendar events",
      description:
        `${uploadFields} Fields: courseId (required), title, description, timeZone (an IANA name such as Europe/Berlin for the ` +
        "syllabus's times; default UTC). The text is extracted before the answer (the document is SYLLABUS and processed); classes, " +
        "exams, deadlines and office hours become calendar events of the course. Uploading the same syllabus again creates no " +
        "duplicate events.",
      auth: true,
      responses: {
        200: {
          description: "The processed syllabus and how many calendar events it produced",
          schema: documentAnswer("Syllabus processed: N calendar events created"),
        },
        400: {
          description:
            "Not an accepted format (UNEXPECTED_FILE), invalid fields (VALIDATION_ERROR), or the syllabus could not be processed in " +
            "time or at all (the documents service's code and message)",
          schema: errorEnvelope,
        },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
        413: { description: "The file is over 150 MB (FILE_TOO_LARGE); nothing is kept", schema: errorEnvelope },
        503: {
          description: "The documents service's upload endpoint is not configured or not reachable (SERVICE_UNAVAILABLE)",
          schema: errorEnvelope,
        },
        504: { description: UPLOAD_TIMEOUT_DESCRIPTION, schema: errorEnvelope },
      },
      async handler({ userId, req, res }) {
        const { body } = await forward(req, res, "/uploads/syllabus", userId);
        const document = api.Document.fromJSON(body.document);
        const created = typeof body.eventsCreated === "number" ? body.eventsCreated : (document.calendarEventsCreated ?? 0);
        res.status(200).json({
          success: true,
          document: documentJson(document),
          message: `Syllabus processed: ${created} calendar event${created === 1 ? "" : "s"} created`,
        });
      },
    }),
    route({
      method: "get",
      path: "/api/documents/search",
      tag,
      summary: "Search inside the course's documents: keyword (full text), semantic (embeddings) or hybrid (both, fused)",
      description:
        "Results name the page of their snippet. Without an embedding provider a semantic or hybrid search runs as keyword, and " +
        "searchType says so. A parameter given twice is 400 VALIDATION_ERROR.",
      auth: true,
      query: searchQuery,
      responses: {
        200: { description: "The matches, best first (top-level `results`, the spec's exception to the envelope)", schema: searchAnswer },
        400: {
          description:
            "VALIDATION_ERROR (query or courseId missing, the query blank or over 500 characters, an unknown documentType or " +
            "searchType), INVALID_LIMIT (not an integer 1-100), INVALID_OFFSET (not an integer of 0 or more)",
          schema: errorEnvelope,
        },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, query, res }) {
        const response = await clients.documents.searchDocuments({
          userId,
          courseId: query.courseId,
          query: query.query,
          documentTypes: query.documentTypes.map((name) => documentType.toProto(name)),
          tags: query.tags,
          page: searchPage(query.limit, query.offset),
          searchType: searchType.toProto(query.searchType),
        });
        res.status(200).json(documentSearchJson(response));
      },
    }),
    route({
      method: "get",
      path: "/api/documents",
      tag,
      summary: "List the course's documents, newest first (without their extracted text)",
      auth: true,
      query: listQuery,
      responses: {
        200: { description: "A page of documents", schema: dataEnvelope(z.array(documentSchema)).extend({ pagination: paginationSchema }) },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, query, res }) {
        const { documents, page } = await clients.documents.listDocuments({
          userId,
          courseId: query.courseId,
          documentType: documentType.toProto(query.documentType),
          page: { limit: query.limit, offset: query.offset },
        });
        res.status(200).json({
          success: true,
          data: documents.map(documentJson),
          message: "Documents retrieved",
          pagination: paginationJson(page, "page in ListDocuments reply"),
        });
      },
    }),
    route({
      method: "get",
      path: "/api/documents/:id",
      tag,
      summary: "Get a document with its extracted text and pages",
      auth: true,
      params: idParams,
      query: courseQuery,
      responses: { 200: { description: "The document", schema: dataEnvelope(documentSchema) }, 404: documentNotFound },
      async handler({ userId, params, query, res }) {
        const reply = await clients.documents.getDocument({ userId, courseId: query.courseId, documentId: params.id });
        sendData(res, 200, documentJson(required(reply.document, "document in GetDocument reply")), "Document retrieved");
      },
    }),
    route({
      method: "get",
      path: "/api/documents/:id/file",
      tag,
      summary: "Download the uploaded file of a document (its owner only)",
      description:
        "Streams the file as it was uploaded, in the content type of its detected format, with Content-Length and " +
        "`X-Content-Type-Options: nosniff`. `Content-Disposition` is inline for PDF, images (PNG, JPEG, GIF, WebP) and plain " +
        "text, which a browser shows in place, and attachment for every other format; it names the original file. Supports " +
        "one byte range (`Range: bytes=first-last`, `first-` or `-suffix`): 206 with Content-Range; a range outside the file is " +
        "416 with `Content-Range: bytes */size`. The file stays downloadable whatever the extraction did (pending or failed). " +
        "HEAD answers the headers only.",
      auth: true,
      params: idParams,
      responses: {
        200: { description: "The whole file, in its own content type", contentType: "application/octet-stream" },
        206: { description: "The requested byte range (Content-Range: bytes first-last/size)", contentType: "application/octet-stream" },
        404: { description: "No such document of the caller (NOT_FOUND)", schema: errorEnvelope },
        416: { description: "The range holds no byte of the file (Content-Range: bytes */size); no body" },
        503: {
          description: "The documents service's internal endpoint is not configured or not reachable (SERVICE_UNAVAILABLE)",
          schema: errorEnvelope,
        },
      },
      async handler({ userId, req, res, params }) {
        const { DOCUMENTS_UPLOAD_URL, INTERNAL_UPLOAD_SECRET } = settings;
        if (!DOCUMENTS_UPLOAD_URL || !INTERNAL_UPLOAD_SECRET) {
          throw new AppError("unavailable", "SERVICE_UNAVAILABLE", "Document files are not available: the documents endpoint is not configured");
        }
        // The documents service finds the file by the document's id (its owner's only) and streams it from storage.
        const path = `/files/${encodeURIComponent(params.id)}`;
        await forwardFileRequest(req, res, { url: DOCUMENTS_UPLOAD_URL, secret: INTERNAL_UPLOAD_SECRET }, userId, path);
      },
    }),
    route({
      method: "delete",
      path: "/api/documents/:id",
      tag,
      summary: "Delete a document: its record, text and search entries at once, the stored file shortly after",
      auth: true,
      params: idParams,
      query: courseQuery,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: documentNotFound },
      async handler({ userId, params, query, res }) {
        await clients.documents.deleteDocument({ userId, courseId: query.courseId, documentId: params.id });
        sendMessage(res, "Document deleted");
      },
    }),
    route({
      method: "post",
      path: "/api/documents/:id/generate",
      tag,
      summary: "Generate flashcards, a quiz and/or a study guide from a processed document (items link to their source page)",
      description:
        "The same generators as for notes; the same document content and options return the existing material. questionCount " +
        "sets the cards of the flashcard set and the questions of the quiz (default 10).",
      auth: true,
      params: idParams,
      body: generateBody,
      responses: {
        200: { description: "The material made, keyed by type (top-level `results`, the spec's exception to the envelope)", schema: generatedAnswer },
        400: {
          description:
            "Invalid input (VALIDATION_ERROR with details), the document's text is not extracted yet or its extraction failed " +
            "(DOCUMENT_NOT_PROCESSED), or it holds too little text to generate from (NOT_ENOUGH_CONTENT)",
          schema: errorEnvelope,
        },
        404: { description: "No such document of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, body, res }) {
        const generation = documentGenerationRequest(userId, params.id, body.options);
        const count = body.options?.questionCount ?? 0;
        const shortfalls: string[] = [];
        const replies: { documents: study.SourceTitle[] }[] = [];
        const generate: Record<GenerationType, () => Promise<[GenerationType, { id: string } & Record<string, unknown>]>> = {
          async flashcards() {
            const reply = await clients.study.generateFlashcards({ generation, cardCount: count }, generationDeadline);
            replies.push(reply);
            const set = required(reply.flashcardSet, "flashcard set in GenerateFlashcards reply");
            if (reply.shortfall) shortfalls.push(`flashcards: ${reply.shortfall}`);
            return ["flashcards", { id: set.id, cardCount: set.cardCount }];
          },
          async quiz() {
            const reply = await clients.study.generateQuiz({ generation, questionCount: count }, generationDeadline);
            replies.push(reply);
            const quiz = required(reply.quiz, "quiz in GenerateQuiz reply");
            if (reply.shortfall) shortfalls.push(`quiz: ${reply.shortfall}`);
            return ["quiz", { id: quiz.id, questionCount: quiz.questions.length }];
          },
          async "study-guide"() {
            const reply = await clients.study.generateStudyGuide({ generation }, generationDeadline);
            replies.push(reply);
            const guide = required(reply.studyGuide, "study guide in GenerateStudyGuide reply");
            return ["study-guide", { id: guide.id, sectionCount: guide.sections.length }];
          },
        };
        // The generations are independent: they run side by side, so an AI model's latency is paid once.
        const results = Object.fromEntries(await Promise.all(body.types.map((type) => generate[type]())));
        const title = documentTitle(replies);
        const names = body.types.map((type) => GENERATED_NAMES[type]);
        const listed = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
        res.status(200).json({ success: true, results, message: withShortfall(`Generated ${listed} from "${title}"`, shortfalls.join("; ")) });
      },
    }),
  ];
}
