import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  librivoxClip,
  requireStatus,
  runFfmpeg,
  signUpWithCourse,
  startS3Server,
  startTestStack,
  uploadMultipart,
  waitForJob,
  type LocalS3Server,
  type TestStack,
  type UploadFile,
} from "@study/testkit";

const BUCKET = "study-media";

/**
 * Media with an S3-compatible bucket instead of a folder (MEDIA_S3_* pointing at the local S3-protocol peer):
 * streamed uploads land in the bucket, the worker transcribes from it, the file route serves from it (ranges
 * too), and deleting a note removes its objects.
 */
describe("media on S3 end to end", () => {
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let s3: LocalS3Server;
  let folder: string;
  let localStorageDirectory: string;
  let lecture: Buffer;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "media-s3-e2e-"));
    localStorageDirectory = join(folder, "unused-local-storage");
    await Promise.all([
      // ≈ 9 s of speech as MP3.
      runFfmpeg([
        "-i",
        librivoxClip("0880"),
        "-i",
        librivoxClip("0890"),
        "-filter_complex",
        "[0:a][1:a]concat=n=2:v=0:a=1[out]",
        "-map",
        "[out]",
        join(folder, "lecture.mp3"),
      ]),
      runFfmpeg(["-i", librivoxClip("0920"), join(folder, "short.mp3")]),
      writeFile(join(folder, "reading.txt"), "Chapter 1: The family of Dashwood had long been settled in Sussex.\n"),
    ]);
    lecture = await readFile(join(folder, "lecture.mp3"));
    s3 = await startS3Server({ buckets: [BUCKET], accessKeyId: "MEDIAE2E", secretAccessKey: "media-e2e-secret" });
    stack = await startTestStack({
      services: ["courses", "media"],
      env: {
        MEDIA_S3_BUCKET: BUCKET,
        MEDIA_S3_ENDPOINT: s3.endpoint,
        MEDIA_S3_REGION: s3.region,
        MEDIA_S3_ACCESS_KEY_ID: s3.accessKeyId,
        MEDIA_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        // Set to show that nothing is written there while the bucket is configured.
        MEDIA_STORAGE_DIR: localStorageDirectory,
      },
    });
    api = httpClient(stack.gatewayUrl);
  }, 120_000);

  afterAll(async () => {
    if (process.env.E2E_DUMP_LOGS) console.log(stack?.logs.join("\n"));
    await stack?.stopAll();
    await s3?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const signUp = (name: string) => signUpWithCourse(api, { name });

  /** Uploads a file that must be accepted (201), and returns what was created. */
  const upload = async (token: string, path: string, fields: Record<string, string>, file: UploadFile) =>
    requireStatus(await uploadMultipart(stack.gatewayUrl, token, path, fields, file), 201, `POST ${path}`).body.data;

  const download = (url: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.gatewayUrl}${url}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  const s3Operations = (key: string) => s3.requests.filter((request) => request.key === key).map((request) => request.operation);

  it("stores an upload in the bucket, transcribes it from there, and serves it back whole and by range", async () => {
    const user = await signUp("Cloud");
    const { note, importJob, uploadInfo } = await upload(
      user.token,
      "/api/notes/upload/audio",
      { courseId: user.courseId },
      {
        path: join(folder, "lecture.mp3"),
        name: "lecture.mp3",
        type: "audio/mpeg",
      },
    );
    const key = uploadInfo.s3Key as string;
    const object = s3.object(BUCKET, key)!;
    expect(object.body.equals(lecture)).toBe(true);
    expect(object.contentType).toBe("audio/mpeg");

    expect(await waitForJob(api, user.token, importJob.id)).toMatchObject({ status: "COMPLETED", errorMessage: null });
    const full = (await api("GET", `/api/notes/${note.id}`, { token: user.token })).body.data;
    expect(full.metadata.wordCount).toBeGreaterThan(5);
    expect(full.metadata.duration).toBeGreaterThan(8);
    // The worker read the upload from the bucket.
    expect(s3Operations(key)).toEqual(["PutObject", "GetObject"]);

    const whole = await download(note.audioUrl, user.token);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/mpeg");
    expect(whole.headers.get("content-length")).toBe(String(lecture.length));
    expect(Buffer.from(await whole.arrayBuffer()).equals(lecture)).toBe(true);
    const part = await download(note.audioUrl, user.token, { range: "bytes=2048-10239" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 2048-10239/${lecture.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(lecture.subarray(2048, 10240))).toBe(true);
    // Size from HeadObject, then only the asked bytes from S3.
    expect(s3.requests.filter((request) => request.key === key && request.operation === "GetObject").map((request) => request.status)).toEqual([
      200, 200, 206,
    ]);
    expect(await readdir(localStorageDirectory).catch(() => [])).toEqual([]);
  }, 45_000);

  it("removes a deleted note's audio and attachments from the bucket", async () => {
    const user = await signUp("Tidy");
    const { note, importJob, uploadInfo } = await upload(
      user.token,
      "/api/notes/upload/audio",
      { courseId: user.courseId },
      {
        path: join(folder, "short.mp3"),
        name: "short.mp3",
        type: "audio/mpeg",
      },
    );
    const attachment = await upload(
      user.token,
      `/api/notes/${note.id}/attachments`,
      { timestamp: "2" },
      {
        path: join(folder, "reading.txt"),
        name: "reading.txt",
        type: "text/plain",
      },
    );
    const attachmentKey = decodeURIComponent(attachment.fileUrl.slice("/api/files/".length));
    expect(s3.objectKeys(BUCKET)).toEqual(expect.arrayContaining([uploadInfo.s3Key, attachmentKey]));
    const served = await download(attachment.fileUrl, user.token);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(await readFile(join(folder, "reading.txt"), "utf8"));

    await waitForJob(api, user.token, importJob.id);
    expect((await api("DELETE", `/api/notes/${note.id}`, { token: user.token })).status).toBe(200);
    expect((await download(note.audioUrl, user.token)).status).toBe(404);
    await eventually(async () => !s3.objectKeys(BUCKET).some((key) => key === uploadInfo.s3Key || key === attachmentKey), 10_000);
    expect(s3Operations(uploadInfo.s3Key)).toContain("DeleteObject");
    expect(s3Operations(attachmentKey)).toContain("DeleteObject");
  }, 45_000);
});
