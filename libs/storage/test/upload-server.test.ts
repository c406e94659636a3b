import { createHash } from "node:crypto";
import { mkdir, mkdtemp, open, readdir, readFile, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Writable, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, createLogger, internalRequestHeaders } from "@study/platform";
import { LocalFileStorage } from "@study/storage";
import { newUploadKey, startInternalHttpServer, type RunningInternalHttpServer, type UploadRoute, type UploadStorage } from "../src/upload-server";

const SECRET = "internal-upload-secret-for-tests";
const USER_ID = "user-1";
const UPLOAD_PATH = "/uploads/test";
const BOUNDARY = "test-boundary-7f3a";
const KiB = 1024;
const MiB = 1024 * KiB;
/** The test route's "audio" signature, checked in the file's first bytes. */
const SIGNATURE = Buffer.from("AUD1");

/** A multipart body with a `title` field and a `file` part holding `content`; `truncate` cuts it before its end. */
function multipartBody(content: Buffer, options: { truncateAt?: number } = {}): Buffer {
  const body = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="title"\r\n\r\nLecture\r\n`),
    Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="lecture.aud"\r\ncontent-type: audio/test\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  return options.truncateAt === undefined ? body : body.subarray(0, options.truncateAt);
}

const audioContent = (size: number) => Buffer.concat([SIGNATURE, Buffer.alloc(size - SIGNATURE.length, 7)]);

interface Answer {
  status: number;
  body: { error?: { kind: string; code: string; message: string; details: unknown[] } } & Record<string, unknown>;
}

/** A POST to the upload endpoint, signed as the gateway signs it, announcing `contentLength` bytes. */
function signedUploadRequest(port: number, contentLength: number, contentType = `multipart/form-data; boundary=${BOUNDARY}`) {
  return httpRequest({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: UPLOAD_PATH,
    headers: {
      ...internalRequestHeaders(SECRET, { userId: USER_ID, method: "POST", path: UPLOAD_PATH }),
      "content-type": contentType,
      "content-length": String(contentLength),
    },
  });
}

/**
 * Posts `body` to the server, signed as the gateway signs it, in 64 KB chunks; resolves with the answer, or
 * rejects when none came within `answerWithinMs` (an upload that hangs is the failure being tested for).
 */
function post(port: number, body: Buffer, options: { contentType?: string; answerWithinMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = signedUploadRequest(port, body.length, options.contentType);
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no answer within ${options.answerWithinMs ?? 10_000} ms`));
    }, options.answerWithinMs ?? 10_000);
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
      });
    });
    // The server may answer early and stop reading: a write error then is expected, the answer decides.
    request.on("error", () => undefined);
    void (async () => {
      for (let offset = 0; offset < body.length && !request.destroyed; offset += 64 * KiB) {
        if (!request.write(body.subarray(offset, offset + 64 * KiB))) await new Promise((next) => request.once("drain", next));
      }
      request.end();
    })();
  });
}

/**
 * Every file below `folder`, as paths relative to it. The server may remove a folder while it is being walked
 * (a cancelled upload's): the walk then fails with ENOENT and is made again.
 */
async function filesUnder(folder: string): Promise<string[]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const entries = await readdir(folder, { recursive: true, withFileTypes: true });
      return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(folder.length + 1));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || attempt === 5) throw error;
    }
  }
}

const diskFull = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

/**
 * A storage whose disk fills up after `capacity` bytes: like LocalFileStorage it streams the body into a file
 * with `pipeline` (which destroys the body with the write error), but it leaves the partial file behind under
 * the key, as a store without an atomic rename would, so the server's own clean-up is what removes it.
 */
class DiskFullStorage implements UploadStorage {
  readonly deleted: string[] = [];

  constructor(
    private readonly root: string,
    private readonly capacity: number,
  ) {}

  async put(key: string, body: Readable, options: { signal?: AbortSignal }): Promise<{ size: number }> {
    const path = join(this.root, key);
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, "w");
    let written = 0;
    const capacity = this.capacity;
    const disk = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (written + chunk.length > capacity) return callback(diskFull());
        written += chunk.length;
        file.write(chunk).then(() => callback(), callback);
      },
    });
    try {
      await pipeline(body, disk, { signal: options.signal });
      return { size: written };
    } finally {
      await file.close();
    }
  }

  async delete(key: string): Promise<void> {
    this.deleted.push(key);
    await rm(join(this.root, key), { force: true });
  }
}

/** A storage that fails on its own after reading `readBeforeFailing` bytes (S3 refusing a part): the body sees no error. */
class FailingObjectStore implements UploadStorage {
  readonly deleted: string[] = [];

  constructor(private readonly readBeforeFailing: number) {}

  put(_key: string, body: Readable): Promise<{ size: number }> {
    return new Promise((_resolve, reject) => {
      let read = 0;
      const onData = (chunk: Buffer) => {
        read += chunk.length;
        if (read < this.readBeforeFailing) return;
        body.off("data", onData);
        body.pause();
        reject(
          Object.assign(new Error("We encountered an internal error. Please try again."), {
            name: "InternalError",
            $metadata: { httpStatusCode: 500 },
          }),
        );
      };
      body.on("data", onData);
    });
  }

  async delete(key: string): Promise<void> {
    this.deleted.push(key);
  }
}

describe("the internal upload endpoint", () => {
  let root: string;
  let server: RunningInternalHttpServer | undefined;
  let completed: string[];
  let logLines: string[];

  const route: UploadRoute = {
    maxBytes: () => 8 * MiB,
    inspectBytes: SIGNATURE.length,
    key: (userId, fileName) => newUploadKey("uploads/test", userId, fileName),
    inspect(firstBytes) {
      if (!firstBytes.equals(SIGNATURE)) throw new AppError("validation", "UNEXPECTED_FILE", "Not a test audio file");
      return "audio/test";
    },
    async complete(_userId, upload, fields) {
      completed.push(upload.storageKey);
      return { status: 201, body: { storageKey: upload.storageKey, size: upload.size, sha256: upload.sha256, title: fields.title } };
    },
  };

  async function start(storage: UploadStorage): Promise<number> {
    server = await startInternalHttpServer({
      port: 0,
      host: "127.0.0.1",
      secret: SECRET,
      storage,
      logger: createLogger("media-test", "info", { write: (line: string) => void logLines.push(line) }),
      uploads: { [UPLOAD_PATH]: route },
      files: async () => {
        throw AppError.notFound("File");
      },
    });
    return server.port;
  }

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "media-internal-http-"));
    completed = [];
    logLines = [];
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await rm(root, { recursive: true, force: true });
  });

  it("stores a well-formed upload and answers with what the route returns", async () => {
    const port = await start(new LocalFileStorage({ rootDirectory: root, publicBaseUrl: "/api/files" }));
    const answer = await post(port, multipartBody(audioContent(300 * KiB)));
    expect(answer).toEqual({
      status: 201,
      body: {
        storageKey: expect.stringMatching(/^uploads\/test\/user-1\/.+\/lecture\.aud$/),
        size: 300 * KiB,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        title: "Lecture",
      },
    });
    expect(await filesUnder(root)).toEqual([answer.body.storageKey]);
    // The hash computed while the file streamed in is the stored file's.
    const stored = await readFile(join(root, answer.body.storageKey));
    expect(answer.body.sha256).toBe(createHash("sha256").update(stored).digest("hex"));
  });

  describe("answers 400 VALIDATION_ERROR for a body that is not the multipart it announces, storing nothing", () => {
    it.each([
      ["a body without the boundary", Buffer.from("this is not a multipart body at all")],
      ["an empty body", Buffer.alloc(0)],
      ["a body cut off inside the file part", multipartBody(audioContent(512 * KiB), { truncateAt: 300 * KiB })],
      ["a body cut off in a part's headers", multipartBody(audioContent(KiB), { truncateAt: 60 })],
    ])("%s", async (_name, body) => {
      const port = await start(new LocalFileStorage({ rootDirectory: root, publicBaseUrl: "/api/files" }));
      const answer = await post(port, body);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR", message: "Invalid multipart body" });
      expect(completed).toEqual([]);
      expect(await filesUnder(root)).toEqual([]);
      expect(logLines.join("")).not.toContain("UPLOAD_INTERRUPTED");
    });
  });

  it("answers 503 when the disk fills up during the upload, and removes the partial file", async () => {
    const storage = new DiskFullStorage(root, 256 * KiB);
    const port = await start(storage);
    const answer = await post(port, multipartBody(audioContent(4 * MiB)));
    expect(answer).toEqual({
      status: 503,
      body: {
        error: { kind: "unavailable", code: "SERVICE_UNAVAILABLE", message: "The file could not be stored; please try again later", details: [] },
      },
    });
    expect(answer.body.error!.message).not.toMatch(/ENOSPC/);
    expect(completed).toEqual([]);
    expect(storage.deleted).toHaveLength(1);
    expect(await filesUnder(root)).toEqual([]);
    expect(logLines.join("")).toContain("ENOSPC");
    expect(logLines.join("")).not.toContain("UPLOAD_INTERRUPTED");
  });

  it("answers 503 when the object store fails without touching the body, and removes what it may have kept", async () => {
    const storage = new FailingObjectStore(128 * KiB);
    const port = await start(storage);
    const answer = await post(port, multipartBody(audioContent(2 * MiB)));
    expect(answer.status).toBe(503);
    expect(answer.body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    expect(completed).toEqual([]);
    expect(storage.deleted).toEqual([expect.stringMatching(/^uploads\/test\/user-1\//)]);
  });

  it("still treats a client that goes away mid-upload as UPLOAD_INTERRUPTED, keeping nothing", async () => {
    const port = await start(new LocalFileStorage({ rootDirectory: root, publicBaseUrl: "/api/files" }));
    const body = multipartBody(audioContent(4 * MiB));
    const request = signedUploadRequest(port, body.length);
    request.on("error", () => undefined);
    request.write(body.subarray(0, MiB));
    // Gone mid-upload: once the server has started writing the file.
    const deadline = Date.now() + 5_000;
    while ((await filesUnder(root)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await filesUnder(root)).length).toBeGreaterThan(0);
    request.destroy();
    while (!logLines.join("").includes("UPLOAD_INTERRUPTED") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logLines.join("")).toContain("UPLOAD_INTERRUPTED");
    while ((await filesUnder(root)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await filesUnder(root)).toEqual([]);
    expect(completed).toEqual([]);
  });
});
