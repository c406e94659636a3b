import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { AppError } from "@study/platform/errors";
import { startS3Server, type LocalS3Server } from "@study/testkit";
import { LocalFileStorage, S3FileStorage, type FileStorage } from "@study/storage";

const MiB = 1024 * 1024;
const BUCKET = "media";

/** A stream of `data` in chunks of `chunkSize` (as a network upload arrives), optionally failing after `failAfter` bytes. */
function streamOf(data: Buffer, options: { chunkSize?: number; failAfter?: number; failure?: Error } = {}): Readable {
  const chunkSize = options.chunkSize ?? 256 * 1024;
  return Readable.from(
    (async function* () {
      for (let offset = 0; offset < data.length; offset += chunkSize) {
        if (options.failAfter !== undefined && offset >= options.failAfter) throw options.failure ?? new Error("client went away");
        yield data.subarray(offset, offset + chunkSize);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })(),
  );
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function expectAppError(promise: Promise<unknown>, kind: string, code: string): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected an AppError ${code}`);
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  expect(error).toMatchObject({ kind, code });
  return error as AppError;
}

let workDirectory: string;
let s3: LocalS3Server;
const storages: Array<{ name: string; storage: FileStorage; isEmpty: () => Promise<boolean> }> = [];
let localStorage: LocalFileStorage;
let localRoot: string;
let s3Storage: S3FileStorage;

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), "file-storage-"));
  localRoot = join(workDirectory, "objects");
  localStorage = new LocalFileStorage({ rootDirectory: localRoot, publicBaseUrl: "http://localhost:3000/files/" });
  s3 = await startS3Server({ buckets: [BUCKET], accessKeyId: "MEDIAKEY", secretAccessKey: "media-secret" });
  s3Storage = new S3FileStorage({
    bucket: BUCKET,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "MEDIAKEY", secretAccessKey: "media-secret" },
    publicBaseUrl: "https://cdn.example.com/media",
    partSizeBytes: 5 * MiB,
  });
  storages.push(
    { name: "LocalFileStorage", storage: localStorage, isEmpty: async () => (await readdir(localRoot).catch(() => [])).length === 0 },
    {
      name: "S3FileStorage",
      storage: s3Storage,
      isEmpty: async () => s3.objectKeys(BUCKET).length === 0 && s3.pendingMultipartUploads().length === 0,
    },
  );
});

afterAll(async () => {
  s3Storage?.destroy();
  await s3?.close();
  await rm(workDirectory, { recursive: true, force: true });
});

describe.each(["LocalFileStorage", "S3FileStorage"])("%s", (name) => {
  const subject = () => storages.find((entry) => entry.name === name)!;

  afterEach(async () => {
    // Each test cleans up what it stored, so the next one starts from an empty store.
    expect(await subject().isEmpty()).toBe(true);
  });

  it("streams an object in and back out, byte for byte", async () => {
    const { storage } = subject();
    const data = randomBytes(3 * MiB + 123);
    const stored = await storage.put("users/u1/notes/n1/lecture one.mp3", streamOf(data), { contentType: "audio/mpeg" });
    expect(stored).toEqual({ key: "users/u1/notes/n1/lecture one.mp3", size: data.length, contentType: "audio/mpeg" });
    expect((await readAll(await storage.get("users/u1/notes/n1/lecture one.mp3"))).equals(data)).toBe(true);

    const localCopy = join(workDirectory, `${name}-copy.mp3`);
    await storage.download("users/u1/notes/n1/lecture one.mp3", localCopy);
    expect((await readFile(localCopy)).equals(data)).toBe(true);

    await storage.delete("users/u1/notes/n1/lecture one.mp3");
    await expectAppError(storage.get("users/u1/notes/n1/lecture one.mp3"), "not_found", "NOT_FOUND");
  });

  it("tells an object's size and streams any byte range of it (what HTTP Range requests read)", async () => {
    const { storage } = subject();
    const data = randomBytes(MiB + 17);
    await storage.put("ranges/clip.mp3", streamOf(data), { contentType: "audio/mpeg" });
    expect(await storage.stat("ranges/clip.mp3")).toEqual({ size: data.length });
    for (const range of [
      { start: 0, end: 0 },
      { start: 1000, end: 500_000 },
      { start: data.length - 10, end: data.length - 1 },
    ]) {
      const part = await readAll(await storage.get("ranges/clip.mp3", range));
      expect(part.equals(data.subarray(range.start, range.end + 1))).toBe(true);
    }
    await storage.delete("ranges/clip.mp3");
    await expectAppError(storage.stat("ranges/clip.mp3"), "not_found", "NOT_FOUND");
  });

  it("answers NOT_FOUND for a missing key and deletes missing keys quietly", async () => {
    const { storage } = subject();
    const error = await expectAppError(storage.get("nothing/here.wav"), "not_found", "NOT_FOUND");
    expect(error.message).toContain("nothing/here.wav");
    await expectAppError(storage.stat("nothing/here.wav"), "not_found", "NOT_FOUND");
    await expectAppError(storage.download("nothing/here.wav", join(workDirectory, "never.wav")), "not_found", "NOT_FOUND");
    await expect(readFile(join(workDirectory, "never.wav"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(storage.delete("nothing/here.wav")).resolves.toBeUndefined();
  });

  it("leaves nothing when the input stream fails, and rejects with the stream's own error", async () => {
    const { storage } = subject();
    const failure = new AppError("too_large", "FILE_TOO_LARGE", "upload exceeds the limit");
    const body = streamOf(randomBytes(8 * MiB), { failAfter: 6 * MiB + 1, failure });
    await expect(storage.put("uploads/broken.wav", body, { contentType: "audio/wav" })).rejects.toBe(failure);
    await expectAppError(storage.get("uploads/broken.wav"), "not_found", "NOT_FOUND");
  });

  it("leaves nothing when the signal aborts mid-stream", async () => {
    const { storage } = subject();
    const controller = new AbortController();
    const body = Readable.from(
      (async function* () {
        for (let index = 0; ; index++) {
          if (index === 30) controller.abort(); // ~7.5 MiB in: past the first multipart part
          yield Buffer.alloc(256 * 1024, index);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })(),
    );
    await expect(storage.put("uploads/aborted.ogg", body, { contentType: "audio/ogg", signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(body.destroyed).toBe(true);
  });

  it("keeps the previous object when a replacing upload fails", async () => {
    const { storage } = subject();
    await storage.put("notes/n2/audio.flac", streamOf(Buffer.from("first version")), { contentType: "audio/flac" });
    await expect(
      storage.put("notes/n2/audio.flac", streamOf(randomBytes(MiB), { chunkSize: 1024, failAfter: 10_000 }), { contentType: "audio/flac" }),
    ).rejects.toThrow("client went away");
    expect((await readAll(await storage.get("notes/n2/audio.flac"))).toString()).toBe("first version");
    await storage.delete("notes/n2/audio.flac");
  });

  it.each(["../escape.mp3", "/absolute.mp3", "a//b.mp3", "a/./b.mp3", "a/../../b.mp3", "a\\b.mp3", "", "bad\u0000name"])(
    "refuses the key %j",
    async (key) => {
      const { storage } = subject();
      await expectAppError(storage.put(key, streamOf(Buffer.from("x")), { contentType: "audio/mpeg" }), "validation", "INVALID_STORAGE_KEY");
      await expectAppError(storage.get(key), "validation", "INVALID_STORAGE_KEY");
      await expectAppError(storage.stat(key), "validation", "INVALID_STORAGE_KEY");
      expect(() => storage.publicUrl(key)).toThrow(AppError);
    },
  );
});

describe("LocalFileStorage specifics", () => {
  it("writes through a temporary file: only the final file is ever visible under its name", async () => {
    await localStorage.put("a/b/c.mp3", streamOf(Buffer.from("audio")), { contentType: "audio/mpeg" });
    expect(await readdir(join(localRoot, "a", "b"))).toEqual(["c.mp3"]);
    await localStorage.delete("a/b/c.mp3");
    // Folders emptied by the delete go too.
    expect(await readdir(localRoot)).toEqual([]);
  });

  it("builds public URLs under the configured base, encoding each key segment", () => {
    expect(localStorage.publicUrl("users/u1/lecture one#2.mp3")).toBe("http://localhost:3000/files/users/u1/lecture%20one%232.mp3");
  });
});

describe("S3FileStorage specifics", () => {
  it("uploads a large object as a multipart upload of 5 MiB parts", async () => {
    const data = randomBytes(12 * MiB + 7);
    const before = s3.requests.length;
    const stored = await s3Storage.put("big/lecture.wav", streamOf(data), { contentType: "audio/wav" });
    expect(stored.size).toBe(data.length);

    const operations = s3.requests.slice(before).map((request) => request.operation);
    expect(operations.filter((operation) => operation === "CreateMultipartUpload")).toHaveLength(1);
    expect(operations.filter((operation) => operation === "UploadPart")).toHaveLength(3);
    expect(operations.at(-1)).toBe("CompleteMultipartUpload");
    expect(operations).not.toContain("PutObject");

    const object = s3.object(BUCKET, "big/lecture.wav")!;
    expect(object.body.equals(data)).toBe(true);
    expect(object.contentType).toBe("audio/wav");
    expect(object.etag).toMatch(/-3"$/);
    await s3Storage.delete("big/lecture.wav");
    expect(s3.objectKeys(BUCKET)).toEqual([]);
  });

  it("uploads an object smaller than one part with a single PutObject", async () => {
    const before = s3.requests.length;
    await s3Storage.put("small/clip.m4a", streamOf(randomBytes(100_000)), { contentType: "audio/m4a" });
    expect(s3.requests.slice(before).map((request) => request.operation)).toEqual(["PutObject"]);
    await s3Storage.delete("small/clip.m4a");
  });

  it("aborts the multipart upload it started when the stream fails after the first part", async () => {
    const before = s3.requests.length;
    await expect(
      s3Storage.put("big/broken.mp4", streamOf(randomBytes(12 * MiB), { failAfter: 11 * MiB }), { contentType: "video/mp4" }),
    ).rejects.toThrow("client went away");
    const operations = s3.requests.slice(before).map((request) => request.operation);
    expect(operations).toContain("UploadPart");
    expect(operations).toContain("AbortMultipartUpload");
    expect(operations).not.toContain("CompleteMultipartUpload");
    expect(s3.pendingMultipartUploads()).toEqual([]);
    expect(s3.objectKeys(BUCKET)).toEqual([]);
  });

  it("fails with the server's refusal when the credentials name another access key", async () => {
    const intruder = new S3FileStorage({
      bucket: BUCKET,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: "SOMEONEELSE", secretAccessKey: "x" },
      publicBaseUrl: "https://cdn.example.com/media",
    });
    try {
      await expect(intruder.put("x.mp3", streamOf(Buffer.from("x")), { contentType: "audio/mpeg" })).rejects.toMatchObject({
        name: "InvalidAccessKeyId",
      });
    } finally {
      intruder.destroy();
    }
    expect(s3.objectKeys(BUCKET)).toEqual([]);
  });

  it("builds public URLs under the configured base", () => {
    expect(s3Storage.publicUrl("users/u1/a b.mp3")).toBe("https://cdn.example.com/media/users/u1/a%20b.mp3");
  });
});
