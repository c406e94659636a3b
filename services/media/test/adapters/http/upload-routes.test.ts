import { CreateImport } from "../../../src/application/create-import";
import type { ImportJobRepository } from "../../../src/application/ports/import-job-repository.port";
import type { FileStorage } from "../../../src/application/ports/file-storage.port";
import { audioUploadRoute } from "../../../src/adapters/http/upload-routes";
import type { Note } from "../../../src/domain/note";

const USER_ID = "user-1";
const COURSE_ID = "0190f5c2-0000-7000-8000-000000000003";

/** The audio upload route over the real CreateImport, with the records it would write kept in memory. */
function uploadRoute() {
  const created: Note[] = [];
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
  });
  const complete = (fileName: string, fields: Record<string, string> = {}) =>
    route.complete(
      USER_ID,
      { storageKey: `uploads/audio/${USER_ID}/1/upload.mp3`, fileName, size: 4096, declaredMimeType: "audio/mpeg", mimeType: "audio/mpeg" },
      { courseId: COURSE_ID, ...fields },
      {},
    );
  return { complete, created };
}

describe("the audio upload route", () => {
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
