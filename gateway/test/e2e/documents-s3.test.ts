import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  httpClient,
  requireStatus,
  signUpWithCourse,
  startS3Server,
  startTestStack,
  uploadMultipart,
  type LocalS3Server,
  type TestStack,
} from "@study/testkit";
import * as fixtures from "@study/testkit/documents";

const BUCKET = "study-documents";

/**
 * Documents with an S3-compatible bucket instead of a folder (DOCUMENTS_S3_* pointing at the local S3-protocol
 * peer): an upload lands in the bucket and `GET /api/documents/{id}/file` serves it back from there, byte ranges
 * included (S3 GetObject with Range), with nothing written to the local folder.
 */
describe("documents on S3: upload and download", () => {
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let s3: LocalS3Server;
  let folder: string;
  let localStorageDirectory: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "documents-s3-e2e-"));
    localStorageDirectory = join(folder, "unused-local-storage");
    s3 = await startS3Server({ buckets: [BUCKET], accessKeyId: "DOCSE2E", secretAccessKey: "documents-e2e-secret" });
    stack = await startTestStack({
      services: ["courses", "documents"],
      env: {
        DOCUMENTS_S3_BUCKET: BUCKET,
        DOCUMENTS_S3_ENDPOINT: s3.endpoint,
        DOCUMENTS_S3_REGION: s3.region,
        DOCUMENTS_S3_ACCESS_KEY_ID: s3.accessKeyId,
        DOCUMENTS_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
        // Set to show that nothing is written there while the bucket is configured.
        DOCUMENTS_STORAGE_DIR: localStorageDirectory,
        DOCUMENTS_WORK_DIR: join(folder, "work"),
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

  it("serves an uploaded document from the bucket, whole and by byte range", async () => {
    const user = await signUpWithCourse(api, { name: "Bucketeer", courseName: "Biology" });
    const bytes = await fixtures.textPdf();
    const path = join(folder, "lecture.pdf");
    await writeFile(path, bytes);
    const uploaded = requireStatus(
      await uploadMultipart(
        stack.gatewayUrl,
        user.token,
        "/api/documents/upload",
        { courseId: user.courseId },
        { path, name: "lecture.pdf", type: "application/pdf" },
      ),
      200,
      "POST /api/documents/upload",
    ).body.document as { id: string };

    const auth = { authorization: `Bearer ${user.token}` };
    const whole = await fetch(`${stack.gatewayUrl}/api/documents/${uploaded.id}/file`, { headers: auth });
    expect([whole.status, whole.headers.get("content-type"), whole.headers.get("content-length")]).toEqual([
      200,
      "application/pdf",
      String(bytes.length),
    ]);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    const range = await fetch(`${stack.gatewayUrl}/api/documents/${uploaded.id}/file`, { headers: { ...auth, range: "bytes=10-109" } });
    expect([range.status, range.headers.get("content-range")]).toEqual([206, `bytes 10-109/${bytes.length}`]);
    expect(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(10, 110))).toBe(true);

    const local = await readdir(localStorageDirectory, { recursive: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return [];
      throw error;
    });
    expect(local).toEqual([]);
  });
});
