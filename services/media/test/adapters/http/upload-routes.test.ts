import { createLogger } from "@study/platform";
import { CreateImport } from "../../../src/application/create-import";
import type { NoteRepository } from "../../../src/application/ports/note-repository.port";
import { RecordUploadedContent } from "../../../src/application/record-uploaded-content";
import type { ImportJobRepository } from "../../../src/application/ports/import-job-repository.port";
import type { FileStorage } from "../../../src/application/ports/file-storage.port";
import { audioUploadRoute } from "../../../src/adapters/http/upload-routes";
import type { Note } from "../../../src/domain/note";

const USER_ID = "user-1";
const COURSE_ID = "0190f5c2-0000-7000-8000-000000000003";

const SHA256_OF = (text: string) => text.padEnd(64, "0");

/** Content hashes of notes, kept as media's repository keeps them (in creation order); `fail` makes recording throw. */
class ContentHashes implements Pick<NoteRepository, "recordContentHash"> {
  readonly byNote = new Map<string, { userId: string; hash: string }>();
  fail = false;

  async recordContentHash(userId: string, noteId: string, contentHash: string): Promise<string | null> {
    if (this.fail) throw new Error("database unavailable");
    this.byNote.set(noteId, { userId, hash: contentHash });
    const earlier = [...this.byNote].find(([id, entry]) => id !== noteId && entry.userId === userId && entry.hash === contentHash);
    return earlier?.[0] ?? null;
  }
}

/** The audio upload route over the real CreateImport, with the records it would write kept in memory. */
function uploadRoute() {
  const created: Note[] = [];
  const hashes = new ContentHashes();
  const jobs: Pick<ImportJobRepository, "createImport"> = {
    async createImport(note: Note) {
      created.push(note);
    },
  };
  const route = audioUploadRoute({
    maxBytes: 150 * 1024 * 1024,
    storage: { publicUrl: (key: string) => `/api/files/${key}` } as FileStorage,
    createImport: new CreateImport(
      jobs,
      { check: async () => undefined },
      { assertOwned: async () => undefined },
      { getInfo: async () => Promise.reject(new Error("no video in an upload")) },
    ),
    recordContent: new RecordUploadedContent(hashes),
    logger: createLogger("media-test", "silent"),
  });
  const complete = (fileName: string, fields: Record<string, string> = {}, sha256 = SHA256_OF("a"), userId = USER_ID) =>
    route.complete(
      userId,
      {
        storageKey: `uploads/audio/${userId}/1/upload.mp3`,
        fileName,
        size: 4096,
        declaredMimeType: "audio/mpeg",
        mimeType: "audio/mpeg",
        sha256,
      },
      { courseId: COURSE_ID, ...fields },
      {},
      {},
    );
  return { complete, created, hashes };
}

describe("the audio upload route", () => {
  it("keeps a second upload of the same file and names the user's earlier note of it (duplicateOf), never another user's", async () => {
    const { complete, created, hashes } = uploadRoute();
    const first = await complete("lecture.mp3", {}, SHA256_OF("b"));
    expect(first.body).toMatchObject({ duplicateOf: null });
    const second = await complete("lecture (copy).mp3", {}, SHA256_OF("b"));
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ duplicateOf: created[0].id });
    const third = await complete("lecture.mp3", {}, SHA256_OF("b"));
    expect(third.body).toMatchObject({ duplicateOf: created[0].id });
    expect((await complete("other.mp3", {}, SHA256_OF("c"))).body).toMatchObject({ duplicateOf: null });
    expect((await complete("lecture.mp3", {}, SHA256_OF("b"), "user-2")).body).toMatchObject({ duplicateOf: null });
    expect([...hashes.byNote.keys()]).toEqual(created.map((note) => note.id));
  });

  it("still answers 201 (the note exists) when the content hash cannot be recorded, with duplicateOf null", async () => {
    const { complete, hashes } = uploadRoute();
    hashes.fail = true;
    const result = await complete("lecture.mp3");
    expect(result.status).toBe(201);
    expect(result.body).toMatchObject({ duplicateOf: null });
  });

  it("takes the title from a file name without its extension, shortened to 255 characters instead of refusing", async () => {
    const { complete, created } = uploadRoute();
    // 304 code points; the emoji must not be cut in half.
    const fileName = `${"🎙".repeat(200)}${"b".repeat(100)}.mp3`;
    const result = await complete(fileName);
    expect(result.status).toBe(201);
    const title = `${"🎙".repeat(200)}${"b".repeat(55)}`;
    const shortenedName = `${"🎙".repeat(200)}${"b".repeat(51)}.mp3`;
    expect([...title]).toHaveLength(255);
    expect([...shortenedName]).toHaveLength(255);
    expect(created[0]).toMatchObject({ title, metadata: { source: "upload", originalFilename: shortenedName } });
    expect(result.body).toMatchObject({ uploadInfo: { filename: fileName } });

    await complete("lecture 1.wav");
    expect(created[1]).toMatchObject({ title: "lecture 1", metadata: { originalFilename: "lecture 1.wav" } });
  });

  it("refuses a typed title holding a NUL character (PostgreSQL text cannot store it)", async () => {
    const { complete, created } = uploadRoute();
    await expect(complete("lecture.mp3", { title: "Cells\u0000" })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "title", message: "must not contain a NUL character" }],
    });
    expect(created).toEqual([]);
  });

  it("still refuses a title over 255 characters that the user typed", async () => {
    const { complete, created } = uploadRoute();
    await expect(complete("lecture.mp3", { title: "t".repeat(256) })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "title", message: "must be at most 255 characters" }],
    });
    expect(created).toEqual([]);
  });
});
