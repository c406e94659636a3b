import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  requireStatus,
  sharedTestStack,
  signUpWithCourse,
  uploadMultipart,
  type SharedStack,
  type SignedUpUserWithCourse,
} from "@study/testkit";
import * as fixtures from "@study/testkit/documents";

interface DocumentView {
  id: string;
  title: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  filePath: string;
  description: string | null;
  courseId: string;
  documentType: string;
  tags: string[];
  processed: boolean;
  extractedText: string | null;
  format: string;
  status: string;
  failureReason: string | null;
  author: string | null;
  pageCount: number;
  wordCount: number;
  pages?: { number: number; startOffset: number; endOffset: number; ocr: boolean }[];
  calendarEventsCreated?: number | null;
  userId: string;
}

/** One accepted fixture: its bytes, the name and type a client claims, what extraction must find. */
interface Sample {
  name: string;
  type: string;
  bytes: Buffer;
  format: string;
  documentType: string;
  /** Words the extracted text must hold (case-insensitive). */
  finds: string[];
  author?: string;
  pageCount?: number;
  ocr?: boolean;
}

const lower = (text: string | null) => (text ?? "").toLowerCase();

/**
 * Documents through the gateway on the run's shared stack (spec "Documents"): every accepted format uploaded,
 * detected by its bytes and extracted by the worker (OCR for scans and images), hostile files failing with a reason,
 * list/get/delete owner- and course-scoped, search inside documents, universal search, notifications, a syllabus
 * becoming calendar events once, and study material generated from a document.
 */
describe("documents end to end", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let alice: SignedUpUserWithCourse;
  let bob: SignedUpUserWithCourse;
  let folder: string;
  let samples: Sample[];
  const uploaded = new Map<string, DocumentView>();

  const upload = async (
    user: SignedUpUserWithCourse,
    file: { name: string; type: string; bytes: Buffer },
    fields: Record<string, string> = {},
    path = "/api/documents/upload",
  ) => {
    const local = join(folder, `${Math.random().toString(36).slice(2)}-${file.name}`);
    await writeFile(local, file.bytes);
    return uploadMultipart(
      stack.gatewayUrl,
      user.token,
      path,
      { courseId: user.courseId, ...fields },
      { path: local, name: file.name, type: file.type },
    );
  };

  const getDocument = async (user: SignedUpUserWithCourse, id: string, courseId = user.courseId) =>
    api("GET", `/api/documents/${id}?courseId=${courseId}`, { token: user.token });

  /** Polls GET /api/documents/{id} until the worker is done with it (processed, or failed with a reason). */
  const settled = (user: SignedUpUserWithCourse, id: string) =>
    eventually(
      async () => {
        const document = requireStatus(await getDocument(user, id), 200, `GET /api/documents/${id}`).body.data as DocumentView;
        return document.status === "COMPLETED" || document.status === "FAILED" ? document : undefined;
      },
      90_000,
      200,
    );

  const notifications = async (user: SignedUpUserWithCourse) =>
    ((await api("GET", "/api/notifications", { token: user.token })).body.data.notifications as { content: string; type: string }[]).map(
      (notification) => `${notification.type}: ${notification.content}`,
    );

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    folder = await mkdtemp(join(tmpdir(), "documents-e2e-"));
    [alice, bob] = await Promise.all([
      signUpWithCourse(api, { name: "AliceDocs", courseName: "Biology" }),
      signUpWithCourse(api, { name: "BobDocs", courseName: "Physics" }),
    ]);
    samples = [
      {
        name: "cells.pdf",
        type: "application/pdf",
        bytes: await fixtures.textPdf(),
        format: "PDF",
        documentType: "PDF",
        finds: [...fixtures.TEXT_PDF.finds],
        author: fixtures.TEXT_PDF.author,
        pageCount: 3,
      },
      {
        name: "scan.pdf",
        type: "application/pdf",
        bytes: await fixtures.scannedPdf(),
        format: "PDF",
        documentType: "PDF",
        finds: [...fixtures.SCANNED_PDF.finds],
        pageCount: 2,
        ocr: true,
      },
      // The names and types a client claims do not decide anything: this DOCX says it is a PDF.
      {
        name: "radioactivity.pdf",
        type: "application/pdf",
        bytes: await fixtures.docxDocument(),
        format: "DOCX",
        documentType: "DOCX",
        finds: [...fixtures.DOCX.finds],
        author: fixtures.DOCX.author,
      },
      {
        name: "thermo.doc",
        type: "application/msword",
        bytes: fixtures.wordDocument(),
        format: "DOC",
        documentType: "DOC",
        finds: [...fixtures.DOC.finds],
      },
      {
        name: "genetics.pptx",
        type: "application/octet-stream",
        bytes: await fixtures.pptxPresentation(),
        format: "PPTX",
        documentType: "PPTX",
        finds: [...fixtures.PPTX.finds],
        pageCount: 3,
      },
      {
        name: "tectonics.ppt",
        type: "application/vnd.ms-powerpoint",
        bytes: fixtures.pptPresentation(),
        format: "PPT",
        documentType: "PPT",
        finds: [...fixtures.PPT.finds],
      },
      {
        name: "grades.xlsx",
        type: "application/octet-stream",
        bytes: await fixtures.xlsxWorkbook(),
        format: "XLSX",
        documentType: "XLSX",
        finds: fixtures.XLSX_WORKBOOK.finds,
        pageCount: 2,
        author: fixtures.XLSX_WORKBOOK.creator,
      },
      {
        name: "old-grades.xls",
        type: "application/vnd.ms-excel",
        bytes: fixtures.xlsWorkbook(),
        format: "XLS",
        documentType: "XLS",
        finds: fixtures.XLS_WORKBOOK.finds,
      },
      { name: "scores.csv", type: "text/csv", bytes: fixtures.csvFile(), format: "CSV", documentType: "OTHER", finds: [...fixtures.CSV.finds] },
      {
        name: "crystals.rtf",
        type: "application/rtf",
        bytes: fixtures.rtfDocument(),
        format: "RTF",
        documentType: "OTHER",
        finds: [...fixtures.RTF.finds],
      },
      {
        name: "notes.md",
        type: "text/markdown",
        bytes: fixtures.markdownFile(),
        format: "MD",
        documentType: "TXT",
        finds: [...fixtures.MARKDOWN.finds],
      },
      {
        name: "latin.txt",
        type: "text/plain",
        bytes: fixtures.latin1TextFile(),
        format: "TXT",
        documentType: "TXT",
        finds: [...fixtures.LATIN1_TEXT.finds],
      },
      ...(["png", "jpeg", "webp", "gif"] as const).map((format) => ({
        name: `board.${format}`,
        type: `image/${format}`,
        bytes: Buffer.alloc(0),
        format: format.toUpperCase(),
        documentType: "OTHER",
        finds: [...fixtures.IMAGE_TEXT.finds],
        ocr: true,
      })),
    ];
    for (const sample of samples)
      if (sample.bytes.length === 0) sample.bytes = await fixtures.textImage(sample.name.split(".")[1] as fixtures.ImageFixtureFormat);
  }, 120_000);

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("accepts every format, decided by its bytes, and answers at once with processed false", async () => {
    const answers = await Promise.all(samples.map((sample) => upload(alice, sample, { tags: "unit-1, biology" })));
    answers.forEach((answer, index) => {
      const sample = samples[index];
      expect({ name: sample.name, status: answer.status, code: answer.body.code }).toEqual({ name: sample.name, status: 200, code: undefined });
      const document = answer.body.document as DocumentView;
      expect(answer.body.success).toBe(true);
      expect({ name: sample.name, format: document.format, documentType: document.documentType }).toEqual({
        name: sample.name,
        format: sample.format,
        documentType: sample.documentType,
      });
      expect(document).toMatchObject({
        processed: false,
        title: sample.name,
        fileName: sample.name,
        fileSize: sample.bytes.length,
        courseId: alice.courseId,
        tags: ["unit-1", "biology"],
        userId: alice.userId,
      });
      uploaded.set(sample.name, document);
    });
  });

  it("extracts every one's text in the worker: page numbers, author, page and word counts", async () => {
    const results = await Promise.all(samples.map((sample) => settled(alice, required(uploaded.get(sample.name)).id)));
    results.forEach((document, index) => {
      const sample = samples[index];
      expect({ name: sample.name, status: document.status, reason: document.failureReason }).toEqual({
        name: sample.name,
        status: "COMPLETED",
        reason: null,
      });
      expect(document.processed).toBe(true);
      for (const word of sample.finds)
        expect({ name: sample.name, found: lower(document.extractedText).includes(word.toLowerCase()) }).toEqual({ name: sample.name, found: true });
      if (sample.author) expect(document.author).toBe(sample.author);
      if (sample.pageCount) expect(document.pageCount).toBe(sample.pageCount);
      expect(document.wordCount).toBeGreaterThan(0);
      const pages = document.pages ?? [];
      expect(pages.length).toBeGreaterThan(0);
      for (const page of pages) expect(document.extractedText?.slice(page.startOffset, page.endOffset).trim().length).toBeGreaterThan(0);
      if (sample.ocr) expect(pages.every((page) => page.ocr)).toBe(true);
    });
    const cells = results[0];
    const second = cells.pages?.find((page) => page.number === 2);
    expect(cells.extractedText?.slice(second?.startOffset, second?.endOffset)).toContain("mitochondria");
  }, 120_000);

  it("refuses what is not an accepted document, whatever its name: 400 UNEXPECTED_FILE", async () => {
    const refused = [
      { name: "exam.pdf", type: "application/pdf", bytes: fixtures.executableAsPdf() },
      { name: "archive.docx", type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", bytes: fixtures.plainZip() },
      { name: "noise.txt", type: "text/plain", bytes: fixtures.randomJunk() },
      { name: "empty.txt", type: "text/plain", bytes: Buffer.alloc(0) },
    ];
    for (const file of refused) {
      const answer = await upload(alice, file);
      expect({ name: file.name, status: answer.status, code: answer.body.code, success: answer.body.success }).toEqual({
        name: file.name,
        status: 400,
        code: "UNEXPECTED_FILE",
        success: false,
      });
    }
  });

  it("fails hostile files with a clear reason, never crashing the worker", async () => {
    const hostile = [
      { name: "locked.pdf", type: "application/pdf", bytes: await fixtures.encryptedPdf(), reason: /password/i },
      { name: "cut.pdf", type: "application/pdf", bytes: await fixtures.truncatedPdf(), reason: /damaged|truncated|could not be read|corrupt/i },
      { name: "bomb.docx", type: "application/octet-stream", bytes: fixtures.zipBombDocx(), reason: /too large|expand|inflate|compress/i },
    ];
    const ids: string[] = [];
    for (const file of hostile) {
      const answer = await upload(alice, file);
      expect([file.name, answer.status, answer.body.code]).toEqual([file.name, 200, undefined]);
      ids.push((answer.body.document as DocumentView).id);
    }
    const results = await Promise.all(ids.map((id) => settled(alice, id)));
    results.forEach((document, index) => {
      expect({ name: hostile[index].name, status: document.status, processed: document.processed }).toEqual({
        name: hostile[index].name,
        status: "FAILED",
        processed: false,
      });
      expect(document.failureReason).toMatch(hostile[index].reason);
    });
    // The worker is still there: a good file after the bad ones is processed.
    const after = await upload(alice, { name: "after.md", type: "text/markdown", bytes: fixtures.markdownFile() });
    expect((await settled(alice, (after.body.document as DocumentView).id)).status).toBe("COMPLETED");
    const said = await notifications(alice);
    expect(said.some((line) => line.startsWith("ALERT:") && line.includes("locked.pdf") && /password/i.test(line))).toBe(true);
    expect(said.some((line) => line.startsWith("SYSTEM:") && line.includes("after.md"))).toBe(true);
  }, 120_000);

  it("checks the fields: course required and owned, title 1-255, documentType of the spec", async () => {
    const text = { name: "a.txt", type: "text/plain", bytes: Buffer.from("Osmosis moves water across membranes.") };
    const noCourse = await uploadMultipart(stack.gatewayUrl, alice.token, "/api/documents/upload", {}, await onDisk(text));
    expect([noCourse.status, noCourse.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    const bobsCourse = await upload(alice, text, { courseId: bob.courseId });
    expect([bobsCourse.status, bobsCourse.body.code]).toEqual([404, "NOT_FOUND"]);
    const longTitle = await upload(alice, text, { title: "t".repeat(256) });
    expect([longTitle.status, longTitle.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    const badType = await upload(alice, text, { documentType: "VIDEO" });
    expect([badType.status, badType.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    const handout = await upload(alice, text, { documentType: "HANDOUT", title: "Osmosis handout", description: "Week 2" });
    expect(handout.body.document).toMatchObject({ documentType: "HANDOUT", title: "Osmosis handout", description: "Week 2" });
    // Tags as a repeated field, as HTML forms and most clients send an array.
    const form = new FormData();
    form.append("courseId", alice.courseId);
    for (const tag of ["osmosis", "membranes"]) form.append("tags", tag);
    form.append("file", new File([text.bytes], text.name, { type: text.type }));
    const repeated = await fetch(`${stack.gatewayUrl}/api/documents/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect(repeated.status).toBe(200);
    expect(((await repeated.json()) as { document: DocumentView }).document.tags).toEqual(["osmosis", "membranes"]);
  });

  async function onDisk(file: { name: string; type: string; bytes: Buffer }) {
    const path = join(folder, `${Math.random().toString(36).slice(2)}-${file.name}`);
    await writeFile(path, file.bytes);
    return { path, name: file.name, type: file.type };
  }

  it("lists a course's documents (courseId required), filters by type, pages; another user sees nothing", async () => {
    const page = await api("GET", `/api/documents?courseId=${alice.courseId}&documentType=PDF&limit=2&offset=0`, { token: alice.token });
    expect(page.status).toBe(200);
    expect(page.body.success).toBe(true);
    const listed = page.body.data as DocumentView[];
    expect(listed.length).toBeLessThanOrEqual(2);
    expect(listed.every((document) => document.documentType === "PDF")).toBe(true);
    expect(page.body.pagination).toMatchObject({ limit: 2, offset: 0 });
    expect(page.body.pagination.total).toBeGreaterThanOrEqual(4);
    const withoutCourse = await api("GET", "/api/documents", { token: alice.token });
    expect([withoutCourse.status, withoutCourse.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    // Alice's course is not Bob's: 404, as for any other user's id (documents-course-scope.test.ts).
    const bobs = await api("GET", `/api/documents?courseId=${alice.courseId}`, { token: bob.token });
    expect([bobs.status, bobs.body.code]).toEqual([404, "NOT_FOUND"]);
  });

  it("gets a document only with its owner and course: another user's id answers 404", async () => {
    const id = required(uploaded.get("cells.pdf")).id;
    expect((await getDocument(bob, id, alice.courseId)).status).toBe(404);
    expect((await getDocument(bob, id)).status).toBe(404);
    expect((await getDocument(alice, id, bob.courseId)).status).toBe(404);
    const noCourse = await api("GET", `/api/documents/${id}`, { token: alice.token });
    expect([noCourse.status, noCourse.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect((await api("DELETE", `/api/documents/${id}?courseId=${alice.courseId}`, { token: bob.token })).status).toBe(404);
    expect((await api("GET", `/api/documents?courseId=${alice.courseId}`)).status).toBe(401);
  });

  it("searches inside the course's documents: ranked results with snippet, highlights and page", async () => {
    const search = async (user: SignedUpUserWithCourse, query: Record<string, string>) =>
      api("GET", `/api/documents/search?${new URLSearchParams({ courseId: user.courseId, ...query }).toString()}`, { token: user.token });
    const found = await search(alice, { query: "mitochondria respiration" });
    expect(found.status).toBe(200);
    expect(found.body.success).toBe(true);
    const [best] = found.body.results as {
      documentId: string;
      snippet: string;
      highlights: string[];
      page: number;
      relevanceScore: number;
      metadata: { author: string; pageCount: number };
    }[];
    expect(best.documentId).toBe(required(uploaded.get("cells.pdf")).id);
    expect(best.page).toBe(2);
    expect(lower(best.snippet)).toContain("mitochondria");
    expect(best.highlights.map((word) => word.toLowerCase())).toContain("mitochondria");
    expect(best.metadata).toMatchObject({ author: fixtures.TEXT_PDF.author, pageCount: 3 });
    expect(found.body.totalCount).toBeGreaterThanOrEqual(1);
    // Without an embedding provider, semantic search says honestly that keyword search ran.
    const semantic = await search(alice, { query: "mitochondria", searchType: "semantic" });
    expect([semantic.status, semantic.body.searchType]).toEqual([200, "keyword"]);
    const typed = await search(alice, { query: "glucose", documentTypes: "PDF" });
    expect((typed.body.results as { documentType: string }[]).every((result) => result.documentType === "PDF")).toBe(true);
    // Bob searching his own course never sees Alice's documents; Alice's course is not his.
    expect((await search(bob, { query: "mitochondria" })).body.results).toEqual([]);
    const stranger = await api("GET", `/api/documents/search?query=mitochondria&courseId=${alice.courseId}`, { token: bob.token });
    expect([stranger.status, stranger.body.code, stranger.body.results]).toEqual([404, "NOT_FOUND", undefined]);
    const badLimit = await search(alice, { query: "cells", limit: "101" });
    expect([badLimit.status, badLimit.body.code]).toEqual([400, "INVALID_LIMIT"]);
    const noQuery = await search(alice, { query: "" });
    expect(noQuery.status).toBe(400);
  });

  it("reaches universal search as type document, and leaves it when deleted (its notifications said so)", async () => {
    const document = required(uploaded.get("genetics.pptx"));
    const findIt = async () => {
      const answer = await api("GET", `/api/search?query=Punnett&types=document`, { token: alice.token });
      return (answer.body.data.results as { id: string; type: string }[]).some((result) => result.id === document.id && result.type === "document");
    };
    await eventually(async () => (await findIt()) || undefined, 20_000, 200);
    const said = await notifications(alice);
    expect(said.some((line) => line.includes("genetics.pptx") && /processing/i.test(line))).toBe(true);
    expect(said.some((line) => line.includes("genetics.pptx") && /processed and indexed/i.test(line))).toBe(true);

    const deleted = await api("DELETE", `/api/documents/${document.id}?courseId=${alice.courseId}`, { token: alice.token });
    expect([deleted.status, deleted.body.success]).toEqual([200, true]);
    expect((await getDocument(alice, document.id)).status).toBe(404);
    await eventually(async () => ((await findIt()) ? undefined : true), 20_000, 200);
  });

  it("turns a syllabus into calendar events before answering, once however often it is uploaded", async () => {
    const syllabus = {
      name: "syllabus.txt",
      type: "text/plain",
      bytes: Buffer.from(
        [
          "BIO 110 — Introduction to Biology, Fall 2026",
          "Midterm exam: Thursday, October 15, 2026, 7:00-9:00 pm, Hall B",
          "Lab report 1 due September 25, 2026",
          "Final exam: December 14, 2026 at 9:00 am",
        ].join("\n"),
      ),
    };
    const first = await upload(alice, syllabus, { timeZone: "America/New_York" }, "/api/documents/upload-syllabus");
    expect([first.status, first.body.code]).toEqual([200, undefined]);
    expect(first.body.document).toMatchObject({ documentType: "SYLLABUS", processed: true, calendarEventsCreated: 3 });
    expect(first.body.message).toMatch(/3 calendar events/);
    const events = await api("GET", `/api/calendar/events?courseId=${alice.courseId}&limit=100`, { token: alice.token });
    const titles = (events.body.data.events as { title: string; eventType: string; startDate: string }[]).map(
      (event) => `${event.eventType} ${event.startDate}`,
    );
    expect(titles).toEqual(expect.arrayContaining(["EXAM 2026-10-15T23:00:00.000Z", "EXAM 2026-12-14T14:00:00.000Z"]));

    const again = await upload(alice, syllabus, { timeZone: "America/New_York" }, "/api/documents/upload-syllabus");
    expect(again.body.document).toMatchObject({ processed: true, calendarEventsCreated: 0 });
    const after = await api("GET", `/api/calendar/events?courseId=${alice.courseId}&limit=100`, { token: alice.token });
    expect(after.body.data.pagination.total).toBe(events.body.data.pagination.total);
    const said = await notifications(alice);
    expect(said.some((line) => /syllabus/i.test(line) && line.includes("3"))).toBe(true);

    const unreadable = await upload(
      alice,
      { name: "syllabus.pdf", type: "application/pdf", bytes: await fixtures.encryptedPdf() },
      {},
      "/api/documents/upload-syllabus",
    );
    expect([unreadable.status, unreadable.body.code]).toEqual([400, "SYLLABUS_PROCESSING_FAILED"]);
    const bobs = await upload(alice, syllabus, { courseId: bob.courseId }, "/api/documents/upload-syllabus");
    expect(bobs.status).toBe(404);
  });

  it("generates flashcards, a quiz and a study guide from a document, each item linked to its page", async () => {
    const lecture = [
      "The cell membrane is a phospholipid bilayer that controls what enters and leaves the cell.",
      "Mitochondria are the organelles that produce ATP through cellular respiration.",
      "Cellular respiration converts glucose and oxygen into carbon dioxide, water and ATP.",
      "Ribosomes are the structures that translate messenger RNA into proteins.",
      "The nucleus is the organelle that stores the cell's DNA.",
      "Chloroplasts are the organelles where photosynthesis takes place in plant cells.",
      "Photosynthesis converts light energy into chemical energy stored in glucose.",
      "The endoplasmic reticulum is a network of membranes that folds and transports proteins.",
      "The Golgi apparatus modifies, sorts and packages proteins for secretion.",
      "Lysosomes are vesicles that contain digestive enzymes.",
      "Robert Hooke first described cells in 1665 when he examined cork under a microscope.",
      "Mitochondria contain their own DNA, which supports the endosymbiotic theory.",
    ].join(" ");
    const answer = await upload(alice, { name: "cells-lecture.txt", type: "text/plain", bytes: Buffer.from(lecture) });
    const document = await settled(alice, (answer.body.document as DocumentView).id);
    expect(document.status).toBe("COMPLETED");
    const generated = await api("POST", `/api/documents/${document.id}/generate`, {
      token: alice.token,
      body: { types: ["flashcards", "quiz", "study-guide"], options: { difficulty: "EASY", questionCount: 3, focusAreas: ["mitochondria"] } },
    });
    expect([generated.status, generated.body.code]).toEqual([200, undefined]);
    const { flashcards, quiz } = generated.body.results as Record<
      string,
      { id: string; cardCount?: number; questionCount?: number; sectionCount?: number }
    >;
    expect(flashcards.cardCount).toBeGreaterThan(0);
    expect(quiz.questionCount).toBeGreaterThan(0);
    expect(quiz.questionCount).toBeLessThanOrEqual(3);
    expect(generated.body.results["study-guide"].sectionCount).toBeGreaterThan(0);
    const set = await api("GET", `/api/flashcards/${flashcards.id}`, { token: alice.token });
    expect(set.status).toBe(200);
    const cards = set.body.data.flashcards as { source: { documentId?: string; page?: number } | null }[];
    expect(cards.length).toBe(flashcards.cardCount);
    expect(cards.every((card) => card.source?.documentId === document.id && card.source.page === 1)).toBe(true);

    expect((await api("POST", `/api/documents/${document.id}/generate`, { token: bob.token, body: { types: ["quiz"] } })).status).toBe(404);
    const badType = await api("POST", `/api/documents/${document.id}/generate`, { token: alice.token, body: { types: ["poem"] } });
    expect([badType.status, badType.body.code]).toEqual([400, "VALIDATION_ERROR"]);
    const tooMany = await api("POST", `/api/documents/${document.id}/generate`, {
      token: alice.token,
      body: { types: ["quiz"], options: { questionCount: 51 } },
    });
    expect(tooMany.status).toBe(400);
  }, 60_000);
});

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value from an earlier test");
  return value;
}
