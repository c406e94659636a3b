import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { courses, documents, indexing, media } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { startGrpcServer, unary, type RunningGrpcServer } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import { PrismaPassageStore } from "../../src/adapters/db/prisma-passage-store";
import { GrpcDocumentSource } from "../../src/adapters/sources/grpc-document-source";
import { GrpcNoteSource } from "../../src/adapters/sources/grpc-note-source";
import { GrpcOwnershipCheck } from "../../src/adapters/sources/grpc-ownership-check";
import { PrismaClient } from "../../src/generated/prisma/client";
import { chatMigrations } from "../../src/migrations";

const REPO_ROOT = resolve(__dirname, "../../../..");
const REINDEX = "services/chat/dist/reindex.js";
const { UserNoteContentType, TranscriptionStatus } = media;

const ada = "ada";
const bob = "bob";
const micro: string = randomUUID();
const history: string = randomUUID();

function note(userId: string, courseId: string, title: string, extra: Partial<media.Note> = {}): media.Note {
  return {
    id: randomUUID(),
    userId,
    courseId,
    title,
    transcriptionStatus: TranscriptionStatus.TRANSCRIPTION_STATUS_COMPLETED,
    userNotes: [],
    transcriptSegments: [],
    updatedAt: new Date("2026-11-25T00:00:00Z"),
    attachments: [],
    ...extra,
  };
}

const growth = note(ada, micro, "Lecture 2", {
  content: "Under ideal conditions E. coli divides every twenty minutes.",
  summary: "Bacterial growth.",
  transcriptSegments: [{ id: "s1", noteId: "", text: "Under ideal conditions E. coli divides every twenty minutes.", startTime: 754, endTime: 760 }],
  userNotes: [
    { timestamp: 755, content: "Ask about the lag phase.", contentType: UserNoteContentType.USER_NOTE_CONTENT_TYPE_TEXT },
    { timestamp: 756, content: "https://files.example/slides.pdf", contentType: UserNoteContentType.USER_NOTE_CONTENT_TYPE_FILE },
  ],
});
const pasted = note(ada, history, "Pasted notes", { content: "Escherich described the bacterium in 1885." });
const bobsNote = note(bob, micro, "Bob's lecture", { content: "Bob's secret." });
const notes = [growth, pasted, bobsNote];

interface StoredDocument {
  id: string;
  userId: string;
  courseId: string;
  title: string;
  pages: { number: number; text: string }[] | null;
}
const handout: StoredDocument = {
  id: randomUUID(),
  userId: ada,
  courseId: micro,
  title: "Lab handout",
  pages: [{ number: 4, text: "Autoclave plates at 121 °C." }],
};
const scan: StoredDocument = { id: randomUUID(), userId: ada, courseId: micro, title: "Scan", pages: null };
const docs = [handout, scan];

const searchable = (type: indexing.SearchableType, id: string, userId: string): indexing.Searchable => ({
  type,
  id,
  userId,
  title: "",
  keywords: [],
  description: "",
  content: "",
  metadata: {},
});

/** A SearchableSourceService over a list, one item per page (the reindex's paging is exercised). */
const listing = (logger: ReturnType<typeof createLogger>, items: indexing.Searchable[]) => ({
  definition: indexing.SearchableSourceServiceService,
  implementation: {
    listSearchables: unary(logger, "ListSearchables", async (request: indexing.ListSearchablesRequest) => {
      const all = items.filter((item) => request.userId === undefined || item.userId === request.userId);
      const start = Number(request.pageToken || "0");
      return { searchables: all.slice(start, start + 1), nextPageToken: start + 1 < all.length ? String(start + 1) : "" };
    }),
  },
});

/** Stand-ins for media (+ courses) and documents, answering NOT_FOUND for another user's record as they do. */
async function startOwners(): Promise<{ media: RunningGrpcServer; documents: RunningGrpcServer }> {
  const logger = createLogger("fake-owners", "silent");
  const mine = <T extends { userId: string }>(record: T | undefined, userId: string, what: string): T => {
    if (!record || record.userId !== userId) throw AppError.notFound(what);
    return record;
  };
  const mediaServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: media.MediaServiceService,
        implementation: {
          getNote: unary(logger, "GetNote", async (request: media.GetNoteRequest) => ({
            note: mine(
              notes.find((n) => n.id === request.noteId),
              request.userId,
              "Note",
            ),
          })),
        },
      },
      {
        definition: courses.CoursesServiceService,
        implementation: {
          getCourse: unary(logger, "GetCourse", async (request: courses.GetCourseRequest) => {
            if (request.userId !== ada || ![micro, history].includes(request.courseId)) throw AppError.notFound("Course");
            return {
              course: courses.Course.fromPartial({
                id: request.courseId,
                userId: ada,
                name: request.courseId === micro ? "Microbiology" : "History",
              }),
            };
          }),
        },
      },
      listing(
        logger,
        notes.map((n) => searchable(indexing.SearchableType.SEARCHABLE_TYPE_NOTE, n.id, n.userId)),
      ),
    ],
  });
  const documentsServer = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: documents.DocumentsServiceService,
        implementation: {
          getDocument: unary(logger, "GetDocument", async (request: documents.GetDocumentRequest) => {
            const document = mine(
              docs.find((d) => d.id === request.documentId && d.courseId === request.courseId),
              request.userId,
              "Document",
            );
            return {
              document: documents.Document.fromPartial({
                id: document.id,
                userId: document.userId,
                courseId: document.courseId,
                title: document.title,
              }),
            };
          }),
          getDocumentText: unary(logger, "GetDocumentText", async (request: documents.GetDocumentTextRequest) => {
            const document = mine(
              docs.find((d) => d.id === request.documentId),
              request.userId,
              "Document",
            );
            if (!document.pages) throw new AppError("precondition", "DOCUMENT_NOT_PROCESSED", "The document has no text yet");
            return { documentId: document.id, courseId: document.courseId, title: document.title, pages: document.pages };
          }),
        },
      },
      listing(
        logger,
        docs.map((d) => searchable(indexing.SearchableType.SEARCHABLE_TYPE_DOCUMENT, d.id, d.userId)),
      ),
    ],
  });
  return { media: mediaServer, documents: documentsServer };
}

function runReindex(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [REINDEX, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code) => done({ code, stdout, stderr }));
  });
}

describe("chat's gRPC adapters to media, documents and courses, and the reindex command", () => {
  let owners: Awaited<ReturnType<typeof startOwners>>;
  let addresses: { media: string; documents: string; courses: string };

  beforeAll(async () => {
    owners = await startOwners();
    const mediaAddress = `127.0.0.1:${owners.media.port}`;
    addresses = { media: mediaAddress, courses: mediaAddress, documents: `127.0.0.1:${owners.documents.port}` };
  });

  afterAll(async () => {
    await Promise.all([owners.media.shutdown(), owners.documents.shutdown()]);
  });

  it("reads a note as chat indexes it (segments, summary, the user's text notes, transcript) or null when it is not the user's", async () => {
    const source = new GrpcNoteSource(addresses.media);
    try {
      expect(await source.getNote(ada, growth.id)).toEqual({
        noteId: growth.id,
        courseId: micro,
        title: "Lecture 2",
        segments: [{ start: 754, text: "Under ideal conditions E. coli divides every twenty minutes." }],
        summary: "Bacterial growth.",
        userNotes: [{ content: "Ask about the lag phase.", timestamp: 755 }],
        content: "Under ideal conditions E. coli divides every twenty minutes.",
        updatedAt: new Date("2026-11-25T00:00:00Z"),
      });
      expect(await source.getNote(ada, bobsNote.id)).toBeNull();
      expect(await source.getNote(ada, "not-a-note")).toBeNull();
    } finally {
      source.close();
    }
  });

  it("reads a document's pages; a document without text yet is noText, one that is not the user's is gone", async () => {
    const source = new GrpcDocumentSource(addresses.documents);
    try {
      expect(await source.getDocumentText(ada, handout.id)).toEqual({
        found: { documentId: handout.id, courseId: micro, title: "Lab handout", pages: handout.pages },
      });
      expect(await source.getDocumentText(ada, scan.id)).toEqual({ noText: true });
      expect(await source.getDocumentText(bob, handout.id)).toEqual({ gone: true });
    } finally {
      source.close();
    }
  });

  it("checks the course and that each note and document is the user's and of that course (NOT_FOUND otherwise)", async () => {
    const check = new GrpcOwnershipCheck(addresses);
    try {
      expect(await check.courseName(ada, micro)).toBe("Microbiology");
      await expect(check.courseName(bob, micro)).rejects.toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
      await expect(check.assertOwnsSources(ada, micro, [growth.id], [handout.id, scan.id])).resolves.toBeUndefined();
      await expect(check.assertOwnsSources(ada, micro, [pasted.id], [])).rejects.toMatchObject({
        code: "NOT_FOUND",
        message: expect.stringContaining("Note"),
      });
      await expect(check.assertOwnsSources(ada, micro, [bobsNote.id], [])).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(check.assertOwnsSources(ada, history, [], [handout.id])).rejects.toMatchObject({
        code: "NOT_FOUND",
        message: expect.stringContaining("Document"),
      });
    } finally {
      check.close();
    }
  });

  it("rebuilds one user's passages from media's and documents' listings (dist/reindex.js), printing progress", async () => {
    const databaseUrl = await createTestDatabase("chat_reindex", migrationSources(chatMigrations));
    const db = new PrismaClient(prismaOptions(databaseUrl, 2));
    try {
      // A scan that once had text: now unprocessed, its passages go.
      await new PrismaPassageStore(db).replaceSourcePassages(
        { userId: ada, courseId: micro },
        "document",
        scan.id,
        [{ sourceType: "document", sourceId: scan.id, title: "Scan", kind: "page", position: 0, startTime: null, page: 1, text: "Old text." }],
        null,
      );
      const env = {
        DATABASE_URL: databaseUrl,
        MEDIA_GRPC_ADDRESS: addresses.media,
        DOCUMENTS_GRPC_ADDRESS: addresses.documents,
        LOG_LEVEL: "silent",
      };
      const { code, stdout, stderr } = await runReindex(["--user", ada], env);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      const lines = stdout.trim().split("\n");
      expect(lines[0]).toBe("reindex of user ada from media (notes) and documents");
      expect(lines.slice(1, -1)).toEqual([
        expect.stringMatching(/^notes: 1 listed, 3 passages, 0 without text \(\d+ items\/s\) …$/),
        expect.stringMatching(/^notes: 2 listed, 4 passages, 0 without text \(\d+ items\/s\) done$/),
        expect.stringMatching(/^documents: 1 listed, 1 passages, 0 without text \(\d+ items\/s\) …$/),
        expect.stringMatching(/^documents: 2 listed, 1 passages, 1 without text \(\d+ items\/s\) done$/),
      ]);
      expect(lines.at(-1)).toMatch(/^reindex done: 4 listed, 5 passages, 1 without text, 0 removed in [\d.]+ s \(\d+ items\/s\)$/);
      const rows = await db.passage.findMany({ orderBy: [{ sourceId: "asc" }, { position: "asc" }] });
      expect(new Set(rows.map((row) => row.userId))).toEqual(new Set([ada]));
      expect(rows.filter((row) => row.sourceId === pasted.id)).toEqual([
        expect.objectContaining({ courseId: history, kind: "segment", startTime: null, text: "Escherich described the bacterium in 1885." }),
      ]);
      expect(rows.filter((row) => row.sourceId === scan.id)).toEqual([]);

      const refused = await runReindex(["--user"], env);
      expect(refused.code).not.toBe(0);
    } finally {
      await db.$disconnect();
    }
  });
});
