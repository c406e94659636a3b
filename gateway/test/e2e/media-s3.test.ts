import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { openAsBlob } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { eventually, httpClient, startS3Server, startTestStack, type LocalS3Server, type TestStack } from "@study/testkit";

const run = promisify(execFile);
const LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox";
const clip = (id: string) => `${LIBRIVOX}/sense_and_sensibility_01_austen_64kb-${id}.wav`;
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
    const ffmpeg = (args: string[]) => run("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args]);
    await Promise.all([
      // ≈ 9 s of speech as MP3.
      ffmpeg(["-i", clip("0880"), "-i", clip("0890"), "-filter_complex", "[0:a][1:a]concat=n=2:v=0:a=1[out]", "-map", "[out]", join(folder, "lecture.mp3")]),
      ffmpeg(["-i", clip("0920"), join(folder, "short.mp3")]),
      writeFile(join(folder, "reading.txt"), "Chapter 1: The family of Dashwood had long been settled in Sussex.\n"),
    ]);
    lecture = await readFile(join(folder, "lecture.mp3"));
    s3 = await startS3Server({ buckets: [BUCKET], accessKeyId: "MEDIAE2E", secretAccessKey: "media-e2e-secret" });
    stack = await startTestStack({
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

  async function signUp(name: string) {
    const email = `${name.toLowerCase()}-${randomUUID().slice(0, 8)}@example.com`;
    const response = await api("POST", "/api/auth/signup", { body: { name, email, password: "correct horse battery" } });
    expect(response.status).toBe(200);
    const token = response.body.session.token as string;
    const course = await api("POST", "/api/courses", { token, body: { name: "English Literature" } });
    expect(course.status).toBe(201);
    return { token, courseId: course.body.data.id as string };
  }

  async function upload(token: string, path: string, fields: Record<string, string>, file: { path: string; name: string; type: string }) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append("file", new File([await openAsBlob(file.path)], file.name, { type: file.type }));
    const response = await fetch(`${stack.gatewayUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    expect(response.status).toBe(201);
    return (await response.json()).data;
  }

  const completed = (token: string, jobId: string) =>
    eventually(async () => {
      const job = (await api("GET", `/api/jobs/${jobId}`, { token })).body.data as { status: string; errorMessage: string | null };
      return job.status === "PENDING" || job.status === "IN_PROGRESS" ? undefined : job;
    }, 40_000);

  const download = (url: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.gatewayUrl}${url}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  const s3Operations = (key: string) => s3.requests.filter((request) => request.key === key).map((request) => request.operation);

  it("stores an upload in the bucket, transcribes it from there, and serves it back whole and by range", async () => {
    const user = await signUp("Cloud");
    const { note, importJob, uploadInfo } = await upload(user.token, "/api/notes/upload/audio", { courseId: user.courseId }, {
      path: join(folder, "lecture.mp3"),
      name: "lecture.mp3",
      type: "audio/mpeg",
    });
    const key = uploadInfo.s3Key as string;
    const object = s3.object(BUCKET, key)!;
    expect(object.body.equals(lecture)).toBe(true);
    expect(object.contentType).toBe("audio/mpeg");

    expect(await completed(user.token, importJob.id)).toMatchObject({ status: "COMPLETED", errorMessage: null });
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
    expect(s3.requests.filter((request) => request.key === key && request.operation === "GetObject").map((request) => request.status)).toEqual([200, 200, 206]);
    expect(await readdir(localStorageDirectory).catch(() => [])).toEqual([]);
  }, 45_000);

  it("removes a deleted note's audio and attachments from the bucket", async () => {
    const user = await signUp("Tidy");
    const { note, importJob, uploadInfo } = await upload(user.token, "/api/notes/upload/audio", { courseId: user.courseId }, {
      path: join(folder, "short.mp3"),
      name: "short.mp3",
      type: "audio/mpeg",
    });
    const attachment = await upload(user.token, `/api/notes/${note.id}/attachments`, { timestamp: "2" }, {
      path: join(folder, "reading.txt"),
      name: "reading.txt",
      type: "text/plain",
    });
    const attachmentKey = decodeURIComponent(attachment.fileUrl.slice("/api/files/".length));
    expect(s3.objectKeys(BUCKET)).toEqual(expect.arrayContaining([uploadInfo.s3Key, attachmentKey]));
    const served = await download(attachment.fileUrl, user.token);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe(await readFile(join(folder, "reading.txt"), "utf8"));

    await completed(user.token, importJob.id);
    expect((await api("DELETE", `/api/notes/${note.id}`, { token: user.token })).status).toBe(200);
    expect((await download(note.audioUrl, user.token)).status).toBe(404);
    await eventually(async () => !s3.objectKeys(BUCKET).some((key) => key === uploadInfo.s3Key || key === attachmentKey), 10_000);
    expect(s3Operations(uploadInfo.s3Key)).toContain("DeleteObject");
    expect(s3Operations(attachmentKey)).toContain("DeleteObject");
  }, 45_000);
});
