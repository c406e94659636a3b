import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { httpClient, requireStatus, sharedTestStack, signUpWithCourse, uploadMultipart, type SharedStack } from "@study/testkit";
import * as fixtures from "@study/testkit/documents";

/**
 * `GET /api/documents/{id}/file` (issue #29: an uploaded document could never be downloaded again), through the
 * gateway to the documents service's internal endpoint and its storage, on the run's shared stack: the owner gets
 * the bytes as uploaded, in the stored content type, inline only for what a browser shows safely, with byte ranges;
 * anyone else gets 404.
 */
describe("downloading a document's file", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    folder = await mkdtemp(join(tmpdir(), "document-download-"));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  /** Uploads `bytes` as a document of the user's course and returns its id. */
  async function uploaded(user: { token: string; courseId: string }, name: string, type: string, bytes: Buffer): Promise<string> {
    const path = join(folder, name);
    await writeFile(path, bytes);
    const answer = await uploadMultipart(stack.gatewayUrl, user.token, "/api/documents/upload", { courseId: user.courseId }, { path, name, type });
    return requireStatus(answer, 200, "POST /api/documents/upload").body.document.id as string;
  }

  const download = (id: string, token: string, headers: Record<string, string> = {}, method = "GET") =>
    fetch(`${stack.gatewayUrl}/api/documents/${id}/file`, { method, headers: { authorization: `Bearer ${token}`, ...headers } });

  it("gives the owner the file as uploaded, in its stored type, inline for PDF, images and text, else as an attachment", async () => {
    const user = await signUpWithCourse(api, { name: "Reader", courseName: "Biology" });
    const samples = [
      { name: "Cells – week 1.pdf", type: "application/pdf", bytes: await fixtures.textPdf(), contentType: "application/pdf", shown: "inline" },
      { name: "board.png", type: "image/png", bytes: await fixtures.textImage("png"), contentType: "image/png", shown: "inline" },
      { name: "notes.txt", type: "text/plain", bytes: fixtures.utf8TextFile(), contentType: "text/plain", shown: "inline" },
      {
        name: "guide.docx",
        type: "application/octet-stream",
        bytes: await fixtures.docxDocument(),
        contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        shown: "attachment",
      },
      { name: "marks.csv", type: "text/csv", bytes: fixtures.csvFile(), contentType: "text/csv", shown: "attachment" },
      { name: "readme.md", type: "text/markdown", bytes: fixtures.markdownFile(), contentType: "text/markdown", shown: "attachment" },
    ];
    for (const sample of samples) {
      const id = await uploaded(user, sample.name, sample.type, sample.bytes);
      const response = await download(id, user.token);
      expect({ name: sample.name, status: response.status }).toEqual({ name: sample.name, status: 200 });
      expect(Object.fromEntries(response.headers)).toMatchObject({
        "content-type": sample.contentType,
        "content-length": String(sample.bytes.length),
        "accept-ranges": "bytes",
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      });
      expect(response.headers.get("content-disposition")).toMatch(new RegExp(`^${sample.shown}; filename="`));
      expect(Buffer.from(await response.arrayBuffer()).equals(sample.bytes)).toBe(true);
    }
    const [pdf] = samples;
    const id = await uploaded(user, pdf.name, pdf.type, pdf.bytes);
    const named = await download(id, user.token);
    expect(named.headers.get("content-disposition")).toBe(`inline; filename="Cells _ week 1.pdf"; filename*=UTF-8''Cells%20%E2%80%93%20week%201.pdf`);
    await named.arrayBuffer();
  });

  it("serves one byte range (206), refuses a range outside the file (416) and answers HEAD with the headers", async () => {
    const user = await signUpWithCourse(api, { name: "Seeker", courseName: "Physics" });
    const bytes = await fixtures.textPdf();
    const id = await uploaded(user, "lecture.pdf", "application/pdf", bytes);

    const middle = await download(id, user.token, { range: "bytes=100-299" });
    expect(middle.status).toBe(206);
    expect(middle.headers.get("content-range")).toBe(`bytes 100-299/${bytes.length}`);
    expect(middle.headers.get("content-length")).toBe("200");
    expect(Buffer.from(await middle.arrayBuffer()).equals(bytes.subarray(100, 300))).toBe(true);
    const tail = await download(id, user.token, { range: "bytes=-50" });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(-50))).toBe(true);

    const beyond = await download(id, user.token, { range: `bytes=${bytes.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
    await beyond.arrayBuffer();

    const head = await download(id, user.token, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(bytes.length));
    expect(head.headers.get("content-type")).toBe("application/pdf");
  });

  it("answers 404 to another user, for an unknown id and for a deleted document; 401 without a session", async () => {
    const owner = await signUpWithCourse(api, { name: "Keeper", courseName: "History" });
    const other = await signUpWithCourse(api, { name: "Snooper", courseName: "History" });
    const id = await uploaded(owner, "essay.txt", "text/plain", fixtures.utf8TextFile());

    const foreign = await api("GET", `/api/documents/${id}/file`, { token: other.token });
    expect([foreign.status, foreign.body]).toEqual([404, { success: false, error: "Document not found", code: "NOT_FOUND" }]);
    for (const unknown of ["0193a7a4-1c1e-7b5e-9f0e-4c1a2b3c4d5e", "not-an-id"]) {
      expect((await api("GET", `/api/documents/${unknown}/file`, { token: owner.token })).status).toBe(404);
    }
    expect((await api("GET", `/api/documents/${id}/file`)).status).toBe(401);

    requireStatus(await api("DELETE", `/api/documents/${id}?courseId=${owner.courseId}`, { token: owner.token }), 200, "DELETE /api/documents/{id}");
    expect((await api("GET", `/api/documents/${id}/file`, { token: owner.token })).status).toBe(404);
  });
});
