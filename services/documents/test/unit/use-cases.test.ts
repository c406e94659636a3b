import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { EventEnvelope } from "@study/events/envelope";
import { createLogger } from "@study/platform";
import { AppError } from "@study/platform/errors";
import { LocalScratchSpace } from "@study/storage";
import { refusal } from "@study/testkit/refusal";
import { DeleteCourseDocuments, DeleteDocument } from "../../src/application/delete-document";
import { GetDocument, GetDocumentText } from "../../src/application/get-document";
import { GetDocumentFile } from "../../src/application/get-document-file";
import { ListDocuments } from "../../src/application/list-documents";
import { ListSearchables } from "../../src/application/list-searchables";
import type { CourseDirectory } from "../../src/application/ports/course-directory.port";
import type { SyllabusCalendar } from "../../src/application/ports/syllabus-calendar.port";
import { ExtractionFailedError, type ExtractedDocument, type TextExtractor } from "../../src/application/ports/text-extractor.port";
import { prepareChunks } from "../../src/application/prepare-chunks";
import { INTERRUPTED_TOO_OFTEN, ProcessDocument } from "../../src/application/process-document";
import { UploadDocument } from "../../src/application/upload-document";
import { UploadSyllabus } from "../../src/application/upload-syllabus";
import type { StoredFile } from "../../src/domain/document";
import { InMemoryDocumentRepository } from "./in-memory-document-repository";

const logger = createLogger("documents-test", "silent");
const notFound = { kind: "not_found", code: "NOT_FOUND" };
const USER = "user-1";
const OTHER_USER = "user-2";

class FakeCourseDirectory implements CourseDirectory {
  readonly owners = new Map<string, string>();

  own(userId: string): string {
    const courseId = randomUUID();
    this.owners.set(courseId, userId);
    return courseId;
  }

  async assertOwned(userId: string, courseId: string): Promise<void> {
    if (this.owners.get(courseId) !== userId) throw AppError.notFound("Course");
  }
}

/** Storage that "downloads" the bytes a test put under a key. */
class FakeStorage {
  readonly files = new Map<string, string>();

  async download(key: string, localPath: string): Promise<void> {
    const content = this.files.get(key);
    if (content === undefined) throw new Error(`no object ${key}`);
    await writeFile(localPath, content);
  }
}

/** An extractor that reads the downloaded file as text split on form feeds, or fails as told. */
class FakeExtractor implements TextExtractor {
  failWith: Error | null = null;
  readonly formats: string[] = [];

  async extract(filePath: string, format: StoredFile["format"]): Promise<ExtractedDocument> {
    this.formats.push(format);
    if (this.failWith) throw this.failWith;
    const { readFile } = await import("node:fs/promises");
    const pages = (await readFile(filePath, "utf8")).split("\f").map((text, index) => ({ number: index + 1, text, ocr: false }));
    return { pages, author: "Ada Lovelace", pageCount: pages.length };
  }
}

/** The calendar's CreateEventsFromSource: each key once. */
class FakeCalendar implements SyllabusCalendar {
  readonly keys = new Set<string>();
  readonly calls: { courseId: string; titles: string[] }[] = [];

  async createEvents(_userId: string, courseId: string, items: Parameters<SyllabusCalendar["createEvents"]>[2]) {
    this.calls.push({ courseId, titles: items.map(({ item }) => item.title) });
    let created = 0;
    for (const { sourceKey } of items) {
      if (this.keys.has(sourceKey)) continue;
      this.keys.add(sourceKey);
      created++;
    }
    return { created, existing: items.length - created };
  }
}

const storedFile = (overrides: Partial<StoredFile> = {}): StoredFile => ({
  storageKey: `documents/${USER}/${randomUUID()}/notes.pdf`,
  fileName: "notes.pdf",
  size: 1234,
  format: "PDF",
  ...overrides,
});

const eventTypes = (outbox: EventEnvelope[]) => outbox.map((event) => event.type);

describe("documents use cases", () => {
  let documents: InMemoryDocumentRepository;
  let courses: FakeCourseDirectory;
  let courseId: string;
  let work: string;

  beforeEach(async () => {
    documents = new InMemoryDocumentRepository();
    courses = new FakeCourseDirectory();
    courseId = courses.own(USER);
    work = await mkdtemp(join(tmpdir(), "documents-unit-"));
  });
  afterEach(() => rm(work, { recursive: true, force: true }));

  describe("UploadDocument", () => {
    it("stores a PENDING document with the format's type and title from the file name, and announces it", async () => {
      const document = await new UploadDocument(documents, courses).execute(USER, { courseId }, storedFile({ fileName: "Week 1 notes.pdf" }));
      expect(document).toMatchObject({
        userId: USER,
        courseId,
        title: "Week 1 notes.pdf",
        documentType: "PDF",
        format: "PDF",
        mimeType: "application/pdf",
        status: "PENDING",
        tags: [],
      });
      expect(eventTypes(documents.outbox)).toEqual(["documents.document.uploaded.v1"]);
      const payload = documents.outbox[0].payload;
      expect(payload?.$case === "documentUploaded" && payload.value.searchable?.status).toBe("PROCESSING");
    });

    it("keeps the given title, description, type and tags (a JSON array or a comma list)", async () => {
      const upload = new UploadDocument(documents, courses);
      const first = await upload.execute(
        USER,
        { courseId, title: " Lecture 3 ", description: "Slides", documentType: "handout", tags: '["physics", "waves", "physics"]' },
        storedFile(),
      );
      expect(first).toMatchObject({ title: "Lecture 3", description: "Slides", documentType: "HANDOUT", tags: ["physics", "waves"] });
      const second = await upload.execute(USER, { courseId, tags: "a, b ,," }, storedFile({ format: "PNG", fileName: "board.png" }));
      expect(second).toMatchObject({ tags: ["a", "b"], documentType: "OTHER", mimeType: "image/png" });
    });

    it("refuses bad fields, naming each, before touching the course", async () => {
      const upload = new UploadDocument(documents, courses);
      const error = await refusal(() =>
        upload.execute(USER, { courseId: "nope", title: "x".repeat(256), documentType: "SPREADSHEET", tags: "[1]" }, storedFile()),
      );
      expect(error).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR" });
      expect(error.details.map((detail) => detail.field).sort()).toEqual(["courseId", "documentType", "tags", "title"]);
      expect(documents.outbox).toEqual([]);
    });

    it("keeps the same file uploaded again, naming the user's earliest document of it (any course), never another user's", async () => {
      const upload = new UploadDocument(documents, courses);
      const hash = "ab".repeat(32);
      const first = await upload.upload(USER, { courseId }, storedFile({ contentHash: hash }));
      expect(first).toMatchObject({ duplicateOf: null, document: { contentHash: hash } });
      await new Promise((resolve) => setTimeout(resolve, 2));
      const second = await upload.upload(USER, { courseId: courses.own(USER) }, storedFile({ contentHash: hash }));
      expect(second.duplicateOf).toBe(first.document.id);
      expect(second.document.id).not.toBe(first.document.id);
      expect((await upload.upload(USER, { courseId }, storedFile({ contentHash: hash }))).duplicateOf).toBe(first.document.id);
      expect((await upload.upload(USER, { courseId }, storedFile({ contentHash: "cd".repeat(32) }))).duplicateOf).toBeNull();
      expect((await upload.upload(OTHER_USER, { courseId: courses.own(OTHER_USER) }, storedFile({ contentHash: hash }))).duplicateOf).toBeNull();
      expect((await upload.upload(USER, { courseId }, storedFile())).duplicateOf).toBeNull();
    });

    it("answers NOT_FOUND for another user's course and stores nothing", async () => {
      const otherCourse = courses.own(OTHER_USER);
      await expect(new UploadDocument(documents, courses).execute(USER, { courseId: otherCourse }, storedFile())).rejects.toMatchObject(notFound);
      expect(documents.outbox).toEqual([]);
    });
  });

  describe("list, get, delete", () => {
    it("lists a course's documents newest first, filtered by type, with the total; never another user's", async () => {
      const upload = new UploadDocument(documents, courses);
      const pdf = await upload.execute(USER, { courseId }, storedFile());
      await new Promise((resolve) => setTimeout(resolve, 2));
      const png = await upload.execute(USER, { courseId }, storedFile({ format: "PNG" }));
      const otherCourse = courses.own(OTHER_USER);
      await upload.execute(OTHER_USER, { courseId: otherCourse }, storedFile());
      const list = new ListDocuments(documents, courses);
      expect((await list.execute(USER, { courseId })).documents.map((document) => document.id)).toEqual([png.id, pdf.id]);
      expect(await list.execute(USER, { courseId, documentType: "pdf" })).toMatchObject({ total: 1, documents: [{ id: pdf.id }] });
      expect(await list.execute(OTHER_USER, { courseId: otherCourse })).toMatchObject({ total: 1 });
      expect(await list.execute(USER, { courseId, limit: 1, offset: 1 })).toMatchObject({
        total: 2,
        limit: 1,
        offset: 1,
        documents: [{ id: pdf.id }],
      });
    });

    it("answers NOT_FOUND for a list of another user's course or of an unknown one, not an empty list", async () => {
      await new UploadDocument(documents, courses).execute(USER, { courseId }, storedFile());
      const list = new ListDocuments(documents, courses);
      await expect(list.execute(OTHER_USER, { courseId })).rejects.toMatchObject({ ...notFound, message: "Course not found" });
      await expect(list.execute(USER, { courseId: randomUUID() })).rejects.toMatchObject(notFound);
    });

    it("refuses a list without a course, with a bad page or an unknown type", async () => {
      const list = new ListDocuments(documents, courses);
      for (const query of [{ courseId: "" }, { courseId, limit: 101 }, { courseId, offset: -1 }, { courseId, documentType: "PDFX" }]) {
        await expect(list.execute(USER, query)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      }
    });

    it("gets and deletes only the owner's document in its course; the delete is announced for the worker and search", async () => {
      const document = await new UploadDocument(documents, courses).execute(USER, { courseId }, storedFile());
      const get = new GetDocument(documents);
      expect(await get.execute(USER, courseId, document.id)).toMatchObject({ id: document.id });
      await expect(get.execute(OTHER_USER, courseId, document.id)).rejects.toMatchObject(notFound);
      await expect(get.execute(USER, randomUUID(), document.id)).rejects.toMatchObject(notFound);
      await expect(get.execute(USER, courseId, "not-a-uuid")).rejects.toMatchObject(notFound);
      await expect(get.execute(USER, "", document.id)).rejects.toMatchObject({ code: "VALIDATION_ERROR" });

      const remove = new DeleteDocument(documents);
      await expect(remove.execute(OTHER_USER, courseId, document.id)).rejects.toMatchObject(notFound);
      await remove.execute(USER, courseId, document.id);
      await expect(remove.execute(USER, courseId, document.id)).rejects.toMatchObject(notFound);
      const deleted = documents.outbox.at(-1);
      expect(deleted?.type).toBe("documents.document.deleted.v1");
      expect(deleted?.payload?.$case === "documentDeleted" && deleted.payload.value.storageKey).toBe(document.storageKey);
    });

    it("gives the owner the stored file of a document in any course and state, shown inline only for PDF, images and plain text", async () => {
      const upload = new UploadDocument(documents, courses);
      const getFile = new GetDocumentFile(documents);
      const pdf = await upload.execute(USER, { courseId }, storedFile({ fileName: "Week 1.pdf" }));
      expect(await getFile.execute(USER, pdf.id)).toEqual({
        storageKey: pdf.storageKey,
        fileName: "Week 1.pdf",
        mimeType: "application/pdf",
        disposition: "inline",
      });
      const shown = { PNG: "inline", JPEG: "inline", GIF: "inline", WEBP: "inline", TXT: "inline" } as const;
      const saved = { DOCX: "attachment", XLSX: "attachment", PPT: "attachment", RTF: "attachment", CSV: "attachment", MD: "attachment" } as const;
      for (const [format, disposition] of Object.entries({ ...shown, ...saved })) {
        const document = await upload.execute(USER, { courseId }, storedFile({ format: format as StoredFile["format"] }));
        expect({ format, disposition: (await getFile.execute(USER, document.id)).disposition }).toEqual({ format, disposition });
      }
    });

    it("answers NOT_FOUND for another user's document, an unknown id and no id at all", async () => {
      const document = await new UploadDocument(documents, courses).execute(USER, { courseId }, storedFile());
      const getFile = new GetDocumentFile(documents);
      for (const [userId, documentId] of [
        [OTHER_USER, document.id],
        [USER, randomUUID()],
        [USER, "not-a-uuid"],
        [USER, ""],
      ]) {
        await expect(getFile.execute(userId, documentId)).rejects.toMatchObject(notFound);
      }
    });

    it("a deleted course takes its documents with it", async () => {
      const upload = new UploadDocument(documents, courses);
      await upload.execute(USER, { courseId }, storedFile());
      await upload.execute(USER, { courseId }, storedFile());
      expect(await new DeleteCourseDocuments(documents).execute(USER, courseId)).toBe(2);
      expect(await new DeleteCourseDocuments(documents).execute(USER, courseId)).toBe(0);
    });
  });

  describe("ProcessDocument", () => {
    let storage: FakeStorage;
    let extractor: FakeExtractor;
    const process = (maxAttempts = 3) =>
      new ProcessDocument({
        documents,
        storage,
        scratch: new LocalScratchSpace(work),
        extractor,
        prepareChunks: (pages, signal) => prepareChunks(pages, null, signal),
        limits: { timeoutMs: 10_000, maxPages: 100, maxInflatedBytes: 1e8, maxTextChars: 1e6 },
        logger,
        maxAttempts,
      });

    beforeEach(() => {
      storage = new FakeStorage();
      extractor = new FakeExtractor();
    });

    async function uploaded(content: string) {
      const file = storedFile();
      storage.files.set(file.storageKey, content);
      return new UploadDocument(documents, courses).execute(USER, { courseId }, file);
    }

    it("extracts the text page by page, counts words, stores chunks and announces the processed document", async () => {
      const document = await uploaded("Plate tectonics moves continents.\fSubduction makes trenches.\f\fThe end");
      expect(await process().run(document.id)).toBe("completed");
      const stored = documents.get(document.id);
      expect(stored).toMatchObject({ status: "COMPLETED", author: "Ada Lovelace", pageCount: 4, wordCount: 9, failureReason: null });
      expect(stored?.extractedText).toBe("Plate tectonics moves continents.\n\nSubduction makes trenches.\n\nThe end");
      // The empty third page has no span; the others point into the text.
      expect(stored?.pages.map((page) => page.number)).toEqual([1, 2, 4]);
      const text = stored?.extractedText ?? "";
      for (const span of stored?.pages ?? []) expect(text.slice(span.startOffset, span.endOffset).length).toBeGreaterThan(0);
      expect(documents.chunks.get(document.id)?.map((chunk) => chunk.page)).toEqual([1, 2, 4]);
      expect(eventTypes(documents.outbox)).toEqual(["documents.document.uploaded.v1", "documents.document.processed.v1"]);

      const { pages } = await new GetDocumentText(documents).execute(USER, document.id);
      expect(pages).toEqual([
        { number: 1, text: "Plate tectonics moves continents." },
        { number: 2, text: "Subduction makes trenches." },
        { number: 4, text: "The end" },
      ]);
    });

    it("a file that cannot be read fails with its reason, once; a redelivery is skipped", async () => {
      const document = await uploaded("whatever");
      extractor.failWith = new ExtractionFailedError("The PDF is password-protected");
      expect(await process().run(document.id)).toBe("failed");
      expect(documents.get(document.id)).toMatchObject({ status: "FAILED", failureReason: "The PDF is password-protected" });
      expect(await process().run(document.id)).toBe("skipped");
      expect(eventTypes(documents.outbox)).toEqual(["documents.document.uploaded.v1", "documents.document.failed.v1"]);
      await expect(new GetDocumentText(documents).execute(USER, document.id)).rejects.toMatchObject({ code: "DOCUMENT_NOT_PROCESSED" });
    });

    it("infrastructure trouble rejects (the broker retries) and leaves the document to the next attempt", async () => {
      const document = await uploaded("text");
      extractor.failWith = new Error("database went away");
      await expect(process().run(document.id)).rejects.toThrow("database went away");
      expect(documents.get(document.id)?.status).toBe("PROCESSING");
      extractor.failWith = null;
      expect(await process().run(document.id)).toBe("completed");
    });

    it("fails a document whose processing was interrupted too many times", async () => {
      const document = await uploaded("text");
      extractor.failWith = new Error("worker killed");
      for (let attempt = 0; attempt < 2; attempt++) await expect(process(2).run(document.id)).rejects.toThrow();
      expect(await process(2).run(document.id)).toBe("failed");
      expect(documents.get(document.id)?.failureReason).toBe(INTERRUPTED_TOO_OFTEN);
    });

    it("skips a document deleted before its turn", async () => {
      expect(await process().run(randomUUID())).toBe("skipped");
    });
  });

  describe("UploadSyllabus", () => {
    const SYLLABUS = [
      "GEO 101 Introduction to Geology, Fall 2026",
      "Midterm exam: October 15, 2026 at 7:00 pm in Hall B",
      "Final paper due December 12, 2026",
    ].join("\n");
    let storage: FakeStorage;
    let extractor: FakeExtractor;
    let calendar: FakeCalendar;
    const syllabus = (timeoutMs = 10_000) =>
      new UploadSyllabus({
        documents,
        courses,
        calendar,
        storage,
        scratch: new LocalScratchSpace(work),
        extractor,
        prepareChunks: (pages, signal) => prepareChunks(pages, null, signal),
        limits: { timeoutMs: 10_000, maxPages: 100, maxInflatedBytes: 1e8, maxTextChars: 1e6 },
        logger,
        timeoutMs,
      });
    const file = (content: string) => {
      const stored = storedFile({ fileName: "syllabus.txt", format: "TXT" });
      storage.files.set(stored.storageKey, content);
      return stored;
    };

    beforeEach(() => {
      storage = new FakeStorage();
      extractor = new FakeExtractor();
      calendar = new FakeCalendar();
    });

    it("reads the syllabus before answering, creates its events once, and stores it processed as SYLLABUS", async () => {
      const first = await syllabus().execute(USER, { courseId, timeZone: "America/New_York" }, file(SYLLABUS));
      expect(first.eventsCreated).toBe(2);
      expect(first.document).toMatchObject({ documentType: "SYLLABUS", status: "COMPLETED", calendarEventsCreated: 2, title: "syllabus.txt" });
      expect(calendar.calls[0]).toMatchObject({ courseId });
      const processed = documents.outbox.at(-1);
      expect(processed?.payload?.$case === "documentProcessed" && processed.payload.value.calendarEventsCreated).toBe(2);

      // The same syllabus again: a second document, no second set of events.
      const second = await syllabus().execute(USER, { courseId, timeZone: "America/New_York" }, file(SYLLABUS));
      expect(second).toMatchObject({ eventsCreated: 0, eventsExisting: 2 });
      expect(calendar.keys.size).toBe(2);
    });

    it("refuses an unreadable syllabus with a clear 400, keeps nothing and announces the failure", async () => {
      extractor.failWith = new ExtractionFailedError("The file is truncated");
      await expect(syllabus().execute(USER, { courseId }, file(SYLLABUS))).rejects.toMatchObject({
        kind: "validation",
        code: "SYLLABUS_PROCESSING_FAILED",
        message: "The syllabus could not be read: The file is truncated",
      });
      expect(eventTypes(documents.outbox)).toEqual(["documents.syllabus.failed.v1"]);
      expect(calendar.calls).toEqual([]);
    });

    it("refuses a bad time zone and another user's course before reading anything", async () => {
      await expect(syllabus().execute(USER, { courseId, timeZone: "Mars/Olympus" }, file(SYLLABUS))).rejects.toMatchObject({
        code: "VALIDATION_ERROR",
      });
      await expect(syllabus().execute(USER, { courseId: courses.own(OTHER_USER) }, file(SYLLABUS))).rejects.toMatchObject(notFound);
      expect(extractor.formats).toEqual([]);
    });
  });

  it("ListSearchables pages every document as search indexes it", async () => {
    const upload = new UploadDocument(documents, courses);
    const created = [];
    for (let index = 0; index < 3; index++) created.push(await upload.execute(USER, { courseId }, storedFile()));
    const listing = new ListSearchables(documents);
    const first = await listing.execute({ pageToken: "", pageSize: 2 });
    const second = await listing.execute({ pageToken: first.nextPageToken, pageSize: 2 });
    expect([...first.searchables, ...second.searchables].map((searchable) => searchable.id).sort()).toEqual(
      created.map((document) => document.id).sort(),
    );
    expect(second.nextPageToken).toBe("");
    expect(first.searchables[0]).toMatchObject({ type: 6, userId: USER, courseId, status: "PROCESSING" });
  });
});
