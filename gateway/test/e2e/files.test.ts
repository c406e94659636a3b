import { mkdir, mkdtemp, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import {
  eventually,
  httpClient,
  librivoxClip,
  requireStatus,
  runFfmpeg,
  sharedTestStack,
  signUpWithCourse,
  uploadMultipart,
  type SharedStack,
  type UploadFile,
} from "@study/testkit";

const MB = 1024 * 1024;

/** Resident memory of a process (Linux), in bytes. */
async function rssOf(pid: number | undefined): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A GET sent with its path exactly as written (fetch would resolve `..` segments before sending). */
function rawGet(url: string, path: string, token: string): Promise<{ status: number; body: { code?: string } }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { path, headers: { authorization: `Bearer ${token}` } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    request.on("error", reject);
    request.end();
  });
}

/**
 * The files behind notes' audioUrl and attachments' fileUrl, through the gateway (GET /api/files/<key>) from
 * media's local storage: owner-scoped, streamed, with byte ranges. On the shared stack, whose media worker
 * removes a deleted note's files: the deleted note's files are put back on disk before it is asked for them
 * again, so a 404 for them comes from the owner check alone.
 */
describe("stored files end to end", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;
  let lecture: Buffer;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    folder = await mkdtemp(join(tmpdir(), "files-e2e-"));
    await runFfmpeg(["-i", librivoxClip("0880"), join(folder, "lecture.mp3")]);
    lecture = await readFile(join(folder, "lecture.mp3"));
  });

  afterAll(async () => {
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const signUp = (name: string) => signUpWithCourse(api, { name, courseName: "Literature" });

  /** Uploads a file that must be accepted (201), and returns what was created. */
  const upload = async (token: string, path: string, fields: Record<string, string>, file: UploadFile) =>
    requireStatus(await uploadMultipart(stack.gatewayUrl, token, path, fields, file), 201, `POST ${path}`).body.data;

  /**
   * Uploads an audio file and cancels its import: the shared stack's worker would otherwise transcribe it (CPU
   * the run is short of), and nothing here reads the transcript. A cancelled import keeps its note and file.
   */
  const uploadAudio = async (user: { token: string; courseId: string }, file: UploadFile) => {
    const created = await upload(user.token, "/api/notes/upload/audio", { courseId: user.courseId }, file);
    await api("POST", `/api/jobs/${created.importJob.id}/cancel`, { token: user.token });
    return created;
  };

  const uploadLecture = (user: { token: string; courseId: string }) =>
    uploadAudio(user, { path: join(folder, "lecture.mp3"), name: "lecture.mp3", type: "audio/mpeg" });

  const download = (url: string, headers: Record<string, string> = {}, method = "GET") => fetch(`${stack.gatewayUrl}${url}`, { method, headers });

  /** The user's stored files (audio and attachments: their keys hold the user's id), by path in media's storage. */
  const storedFilesOf = async (userId: string) => {
    const paths: string[] = [];
    for (const kind of ["audio", "attachments"]) {
      const directory = join(stack.folders.mediaStorage, "uploads", kind, userId);
      const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
      paths.push(
        ...entries.filter((entry) => entry.isFile()).map((entry) => relative(stack.folders.mediaStorage, join(entry.parentPath, entry.name))),
      );
    }
    return paths.sort();
  };

  it("serves a note's audio to its owner: whole (Bearer or cookie), by byte range, and HEAD", async () => {
    const user = await signUp("Listener");
    const { note, uploadInfo } = await uploadLecture(user);
    expect(note.audioUrl).toBe(`/api/files/${uploadInfo.s3Key}`);
    const auth = { authorization: `Bearer ${user.token}` };

    const whole = await download(note.audioUrl, auth);
    expect(whole.status).toBe(200);
    expect(Object.fromEntries(whole.headers)).toMatchObject({
      "content-type": "audio/mpeg",
      "content-length": String(lecture.length),
      "accept-ranges": "bytes",
      "content-disposition": `inline; filename="lecture.mp3"; filename*=UTF-8''lecture.mp3`,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
      "cross-origin-resource-policy": "same-site",
    });
    expect(Buffer.from(await whole.arrayBuffer()).equals(lecture)).toBe(true);
    const byCookie = await download(note.audioUrl, { cookie: user.cookie });
    expect(byCookie.status).toBe(200);
    expect(Buffer.from(await byCookie.arrayBuffer()).equals(lecture)).toBe(true);

    // What an audio player sends when it seeks.
    const middle = await download(note.audioUrl, { ...auth, range: "bytes=1000-4999" });
    expect(middle.status).toBe(206);
    expect(middle.headers.get("content-range")).toBe(`bytes 1000-4999/${lecture.length}`);
    expect(middle.headers.get("content-length")).toBe("4000");
    expect(Buffer.from(await middle.arrayBuffer()).equals(lecture.subarray(1000, 5000))).toBe(true);
    const tail = await download(note.audioUrl, { ...auth, range: "bytes=-500" });
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe(`bytes ${lecture.length - 500}-${lecture.length - 1}/${lecture.length}`);
    expect(Buffer.from(await tail.arrayBuffer()).equals(lecture.subarray(-500))).toBe(true);
    const half = Math.floor(lecture.length / 2);
    const rest = await download(note.audioUrl, { ...auth, range: `bytes=${half}-` });
    expect(rest.status).toBe(206);
    expect(Buffer.from(await rest.arrayBuffer()).equals(lecture.subarray(half))).toBe(true);
    const beyond = await download(note.audioUrl, { ...auth, range: `bytes=${lecture.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${lecture.length}`);

    const head = await download(note.audioUrl, auth, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(lecture.length));
    expect(head.headers.get("content-type")).toBe("audio/mpeg");
  });

  it("downloads an attachment under its original file name", async () => {
    const user = await signUp("Annotator");
    const { note } = await uploadLecture(user);
    const text = "Week 1 – Elinor and Marianne\n".repeat(50);
    await writeFile(join(folder, "notes.txt"), text);
    const attachment = await upload(
      user.token,
      `/api/notes/${note.id}/attachments`,
      { timestamp: "4.5" },
      {
        path: join(folder, "notes.txt"),
        name: "Résumé – week 1.txt",
        type: "text/plain",
      },
    );
    expect(attachment.fileName).toBe("Résumé – week 1.txt");
    expect(attachment.fileUrl).toMatch(/^\/api\/files\/uploads\/attachments\/.+\/R_sum_week_1\.txt$/);

    const response = await download(attachment.fileUrl, { authorization: `Bearer ${user.token}` });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="R_sum_ _ week 1.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E2%80%93%20week%201.txt`,
    );
    expect(await response.text()).toBe(text);
  });

  it("is owner-scoped: another user's file, a deleted note's file and unknown keys are 404, malformed keys 400, no session 401", async () => {
    const owner = await signUp("Owner");
    const other = await signUp("Other");
    const { note } = await uploadLecture(owner);
    await writeFile(join(folder, "slides.csv"), "week,topic\n1,cells\n");
    const attachment = await upload(
      owner.token,
      `/api/notes/${note.id}/attachments`,
      { timestamp: "1" },
      { path: join(folder, "slides.csv"), name: "slides.csv", type: "text/csv" },
    );

    for (const url of [note.audioUrl, attachment.fileUrl]) {
      const foreign = await api("GET", url, { token: other.token });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ success: false, error: expect.any(String), code: "NOT_FOUND" });
      const anonymous = await api("GET", url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ success: false, code: "UNAUTHORIZED" });
    }
    expect((await api("GET", "/api/files/uploads/audio/nobody/nothing.mp3", { token: owner.token })).status).toBe(404);
    for (const path of ["/api/files/uploads/../../../etc/passwd", "/api/files/uploads/%2e%2e/%2e%2e/etc/passwd", "/api/files/uploads//audio.mp3"]) {
      const refused = await rawGet(stack.gatewayUrl, path, owner.token);
      expect({ path, status: refused.status, code: refused.body.code }).toEqual({ path, status: 400, code: "INVALID_STORAGE_KEY" });
    }

    const before = await storedFilesOf(owner.userId);
    expect(before).toHaveLength(2); // the audio and the attachment
    const contents = await Promise.all(before.map((path) => readFile(join(stack.folders.mediaStorage, path))));
    expect((await api("DELETE", `/api/notes/${note.id}`, { token: owner.token })).status).toBe(200);
    for (const url of [note.audioUrl, attachment.fileUrl]) expect((await api("GET", url, { token: owner.token })).status).toBe(404);
    // The worker deletes the objects (NoteDeleted); once it has, they are put back where they were: the refusal
    // then comes from the owner check, not a missing file.
    await eventually(async () => ((await storedFilesOf(owner.userId)).length === 0 ? true : undefined));
    // A write fails when the worker's clean-up removes its empty folder at that moment: eventually tries again.
    await eventually(async () => {
      for (const [index, path] of before.entries()) {
        const file = join(stack.folders.mediaStorage, path);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, contents[index]);
      }
      return true;
    });
    expect(await storedFilesOf(owner.userId)).toEqual(before);
    for (const url of [note.audioUrl, attachment.fileUrl]) expect((await api("GET", url, { token: owner.token })).status).toBe(404);
    for (const kind of ["audio", "attachments"])
      await rm(join(stack.folders.mediaStorage, "uploads", kind, owner.userId), { recursive: true, force: true });
  });

  it("streams a large file through the gateway and media without holding it in memory", async () => {
    const user = await signUp("Archivist");
    // A valid MP3 start followed by zeros (a sparse file): 128 MB, under the 150 MB upload limit.
    const bigPath = join(folder, "big.mp3");
    await writeFile(bigPath, lecture);
    await truncate(bigPath, 128 * MB);
    const { note } = await uploadAudio(user, { path: bigPath, name: "big.mp3", type: "audio/mpeg" });

    const rss = async () => ({ gateway: await rssOf(stack.pids.gateway), media: await rssOf(stack.pids.media) });
    const start = await rss();
    const response = await download(note.audioUrl, { authorization: `Bearer ${user.token}` });
    expect(response.status).toBe(200);
    let received = 0;
    for await (const chunk of response.body!) received += (chunk as Uint8Array).length;
    expect(received).toBe(128 * MB);
    const end = await rss();
    // Holding the file would show as at least that much growth in one of them.
    expect(end.gateway - start.gateway).toBeLessThan(64 * MB);
    expect(end.media - start.media).toBeLessThan(64 * MB);
    // The shared storage does not keep 128 MB until the run ends: the worker removes a deleted note's files.
    expect((await api("DELETE", `/api/notes/${note.id}`, { token: user.token })).status).toBe(200);
  }, 30_000);
});
