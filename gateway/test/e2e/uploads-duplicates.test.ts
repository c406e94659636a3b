import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  httpClient,
  librivoxClip,
  requireStatus,
  sharedTestStack,
  signUpWithCourse,
  uploadMultipart,
  type SharedStack,
  type SignedUpUserWithCourse,
} from "@study/testkit";

/**
 * Issue #29: the same file uploaded twice made two identical notes (or documents) without a word. Both are still
 * created — the user may mean it — but the second answer names the first (`duplicateOf`, from the SHA-256 of the
 * file computed while it streamed in); a different file, and another user's upload of the same file, say null.
 */
describe("uploading the same file twice", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    folder = await mkdtemp(join(tmpdir(), "uploads-duplicates-"));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  const uploadAudio = async (user: SignedUpUserWithCourse, clip: string, name: string) =>
    requireStatus(
      await uploadMultipart(
        stack.gatewayUrl,
        user.token,
        "/api/notes/upload/audio",
        { courseId: user.courseId },
        { path: librivoxClip(clip), name, type: "audio/wav" },
      ),
      201,
      "POST /api/notes/upload/audio",
    ).body as { data: { note: { id: string }; duplicateOf: string | null }; message: string };

  async function uploadDocument(user: SignedUpUserWithCourse, courseId: string, text: string, name: string) {
    const path = join(folder, `${Math.random().toString(16).slice(2)}.txt`);
    await writeFile(path, text);
    return requireStatus(
      await uploadMultipart(stack.gatewayUrl, user.token, "/api/documents/upload", { courseId }, { path, name, type: "text/plain" }),
      200,
      "POST /api/documents/upload",
    ).body as { document: { id: string }; duplicateOf: string | null; message: string };
  }

  it("creates a second note of the same recording and names the first one in the answer", async () => {
    const user = await signUpWithCourse(api, { name: "Repeater", courseName: "Literature" });
    const other = await signUpWithCourse(api, { name: "Stranger", courseName: "Literature" });

    const first = await uploadAudio(user, "0870", "lecture.wav");
    expect(first.data.duplicateOf).toBeNull();
    const second = await uploadAudio(user, "0870", "lecture again.wav");
    expect(second.data.note.id).not.toBe(first.data.note.id);
    expect(second.data.duplicateOf).toBe(first.data.note.id);
    expect(second.message).toContain(first.data.note.id);
    expect((await uploadAudio(user, "0870", "third.wav")).data.duplicateOf).toBe(first.data.note.id);

    expect((await uploadAudio(user, "0880", "another.wav")).data.duplicateOf).toBeNull();
    expect((await uploadAudio(other, "0870", "lecture.wav")).data.duplicateOf).toBeNull();

    // Both notes exist: nothing was merged or refused.
    for (const id of [first.data.note.id, second.data.note.id]) {
      requireStatus(await api("GET", `/api/notes/${id}`, { token: user.token }), 200, "GET /api/notes/{id}");
    }
  });

  it("creates a second document of the same file, in any of the user's courses, and names the first one", async () => {
    const user = await signUpWithCourse(api, { name: "Collector", courseName: "Biology" });
    const other = await signUpWithCourse(api, { name: "Neighbour", courseName: "Biology" });
    const secondCourse = requireStatus(
      await api("POST", "/api/courses", { token: user.token, body: { name: "Biology II" } }),
      201,
      "POST /api/courses",
    ).body.data.id as string;
    const text = "Mitochondria produce ATP. Ribosomes build proteins.";

    const first = await uploadDocument(user, user.courseId, text, "cells.txt");
    expect(first.duplicateOf).toBeNull();
    const second = await uploadDocument(user, secondCourse, text, "cells (copy).txt");
    expect(second.document.id).not.toBe(first.document.id);
    expect(second.duplicateOf).toBe(first.document.id);
    expect(second.message).toContain(first.document.id);

    expect((await uploadDocument(user, user.courseId, `${text} Chloroplasts make sugar.`, "more.txt")).duplicateOf).toBeNull();
    expect((await uploadDocument(other, other.courseId, text, "cells.txt")).duplicateOf).toBeNull();

    for (const [id, courseId] of [
      [first.document.id, user.courseId],
      [second.document.id, secondCourse],
    ]) {
      requireStatus(await api("GET", `/api/documents/${id}?courseId=${courseId}`, { token: user.token }), 200, "GET /api/documents/{id}");
    }
  });
});
