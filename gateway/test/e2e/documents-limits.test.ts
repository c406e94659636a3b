import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  requireStatus,
  signUpWithCourse,
  startTestStack,
  uploadMultipart,
  type SignedUpUserWithCourse,
  type TestStack,
} from "@study/testkit";
import * as fixtures from "@study/testkit/documents";

const MB = 1024 * 1024;

/** Every file under a folder (the local storage's objects). */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The documents service's limits with small settings on a stack of its own (courses + documents and its worker):
 * an upload over the size cap is refused with 413 and leaves nothing stored; a PDF over the page cap fails with a
 * reason; a delete removes the stored file.
 */
describe("documents limits end to end", () => {
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;
  let storage: string;
  let user: SignedUpUserWithCourse;

  const upload = async (name: string, bytes: Buffer) => {
    const path = join(folder, name);
    await writeFile(path, bytes);
    return uploadMultipart(
      stack.gatewayUrl,
      user.token,
      "/api/documents/upload",
      { courseId: user.courseId },
      { path, name, type: "application/pdf" },
    );
  };

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "documents-limits-"));
    storage = join(folder, "storage");
    stack = await startTestStack({
      services: ["courses", "documents"],
      env: {
        DOCUMENTS_STORAGE_DIR: storage,
        DOCUMENTS_WORK_DIR: join(folder, "work"),
        DOCUMENTS_MAX_UPLOAD_BYTES: String(2 * MB),
        DOCUMENTS_MAX_PAGES: "50",
      },
    });
    api = httpClient(stack.gatewayUrl);
    user = await signUpWithCourse(api, { name: "LimitsStudent", courseName: "Physics" });
  }, 120_000);

  afterAll(async () => {
    if (process.env.E2E_DUMP_LOGS) console.log(stack?.logs.join("\n"));
    await stack?.stopAll();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("refuses a file over the cap with 413 FILE_TOO_LARGE and keeps nothing", async () => {
    const big = Buffer.concat([await fixtures.textPdf(), Buffer.alloc(3 * MB, 32)]);
    const answer = await upload("big.pdf", big);
    expect([answer.status, answer.body.code, answer.body.success]).toEqual([413, "FILE_TOO_LARGE", false]);
    expect(await filesUnder(storage)).toEqual([]);
    const listed = await api("GET", `/api/documents?courseId=${user.courseId}`, { token: user.token });
    expect(listed.body.data).toEqual([]);
  });

  it("fails a PDF over the page limit with a reason; deleting it removes its stored file", async () => {
    const answer = await upload("long.pdf", await fixtures.manyPagesPdf(60));
    expect([answer.status, answer.body.code]).toEqual([200, undefined]);
    const id = answer.body.document.id as string;
    const failed = await eventually(
      async () => {
        const document = requireStatus(await api("GET", `/api/documents/${id}?courseId=${user.courseId}`, { token: user.token }), 200, "GET document")
          .body.data;
        return document.status === "FAILED" ? document : undefined;
      },
      60_000,
      200,
    );
    expect(failed.failureReason).toMatch(/60 pages.*50|too many pages|at most 50/i);
    expect(await filesUnder(storage)).toHaveLength(1);

    const deleted = await api("DELETE", `/api/documents/${id}?courseId=${user.courseId}`, { token: user.token });
    expect(deleted.status).toBe(200);
    // The worker removes the file on the delete event.
    await eventually(async () => ((await filesUnder(storage)).length === 0 ? true : undefined), 20_000, 100);
  }, 90_000);
});
