import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  librivoxClip,
  requireStatus,
  runFfmpeg,
  sharedTestStack,
  signUpWithCourse,
  startGatewayReplica,
  uploadMultipart,
  type GatewayProcess,
  type SharedStack,
} from "@study/testkit";

const IDLE_TIMEOUT_MS = 1_500;
const REQUEST_TIMEOUT_MS = 4_000;

interface PacedUpload {
  status: number;
  body: unknown;
  /** Milliseconds from the first byte sent to the answer. */
  answeredAfterMs: number;
}

/**
 * Posts a multipart audio upload whose file part is `head` followed by zero bytes sent by `pace`: it is called
 * with a function that sends one more piece and answers whether the client should go on.
 */
function pacedUpload(url: string, token: string, courseId: string, head: Buffer, pace: (sendMore: () => void) => void): Promise<PacedUpload> {
  const boundary = `----e2e${randomUUID()}`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": `multipart/form-data; boundary=${boundary}`, "transfer-encoding": "chunked" },
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString("utf8")), answeredAfterMs: Date.now() - started }),
      );
    });
    request.on("error", reject);
    request.write(
      `--${boundary}\r\ncontent-disposition: form-data; name="courseId"\r\n\r\n${courseId}\r\n` +
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow.mp3"\r\ncontent-type: audio/mpeg\r\n\r\n`,
    );
    request.write(head);
    pace(() => {
      if (!request.destroyed) request.write(Buffer.alloc(16 * 1024));
    });
  });
}

/**
 * The spec's upload connection and request timeouts, shortened for the test (UPLOAD_*_TIMEOUT_MS): on a gateway
 * replica of its own in front of the shared stack's services, so that no other file's uploads meet these limits.
 */
describe("upload timeouts end to end", () => {
  let shared: SharedStack;
  let gateway: GatewayProcess;
  let api: ReturnType<typeof httpClient>;
  let folder: string;
  let lecture: Buffer;
  const timers: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    shared = sharedTestStack();
    folder = await mkdtemp(join(tmpdir(), "upload-timeouts-e2e-"));
    await runFfmpeg(["-i", librivoxClip("0890"), join(folder, "lecture.mp3")]);
    lecture = await readFile(join(folder, "lecture.mp3"));
    gateway = await startGatewayReplica({ UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), UPLOAD_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
    api = httpClient(gateway.url);
  }, 120_000);

  afterEach(() => timers.splice(0).forEach((timer) => clearInterval(timer)));

  afterAll(async () => {
    await gateway?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** The user's stored audio (its keys hold the user's id), partial uploads included, in the shared media's storage. */
  const storedFilesOf = async (userId: string) =>
    (await readdir(join(shared.folders.mediaStorage, "uploads", "audio", userId), { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  const jobsOf = async (token: string) => (await api("GET", "/api/jobs", { token })).body.data.jobs;
  /** Whether the shared media service logged the user's upload as interrupted (the gateway gave up on it). */
  const interruptedUploadLogged = async (userId: string) =>
    (await readFile(shared.logFile, "utf8"))
      .split("\n")
      .some((line) => line.startsWith("[media]") && line.includes("UPLOAD_INTERRUPTED") && line.includes(userId));

  it("ends an upload whose client goes quiet with 504 CONNECTION_TIMEOUT, keeping nothing", async () => {
    const user = await signUpWithCourse(api, { name: "Staller", courseName: "History" });
    const before = await storedFilesOf(user.userId);
    // Sends the start of the file, then nothing more.
    const answer = await pacedUpload(
      `${gateway.url}/api/notes/upload/audio`,
      user.token,
      user.courseId,
      lecture.subarray(0, 32 * 1024),
      () => undefined,
    );
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({
      success: false,
      error: expect.stringMatching(/nothing was received for 1\.5 seconds/),
      code: "CONNECTION_TIMEOUT",
    });
    expect(answer.answeredAfterMs).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 100);
    expect(answer.answeredAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS);
    await eventually(() => interruptedUploadLogged(user.userId), 5_000);
    await eventually(async () => JSON.stringify(await storedFilesOf(user.userId)) === JSON.stringify(before), 5_000);
    expect(await jobsOf(user.token)).toEqual([]);
  }, 30_000);

  it("ends an upload that keeps trickling past the request timeout with 504 CONNECTION_TIMEOUT, keeping nothing", async () => {
    const user = await signUpWithCourse(api, { name: "Trickler", courseName: "History" });
    const before = await storedFilesOf(user.userId);
    // Never quiet for long (a piece every 300 ms), but never done either.
    const answer = await pacedUpload(
      `${gateway.url}/api/notes/upload/audio`,
      user.token,
      user.courseId,
      lecture.subarray(0, 32 * 1024),
      (sendMore) => {
        timers.push(setInterval(sendMore, 300));
      },
    );
    expect(answer.status).toBe(504);
    expect(answer.body).toEqual({ success: false, error: expect.stringMatching(/took longer than 4 seconds/), code: "CONNECTION_TIMEOUT" });
    expect(answer.answeredAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    await eventually(async () => JSON.stringify(await storedFilesOf(user.userId)) === JSON.stringify(before), 5_000);
    expect(await jobsOf(user.token)).toEqual([]);
  }, 30_000);

  it("still accepts an upload that arrives in time, on the same limits", async () => {
    const user = await signUpWithCourse(api, { name: "Punctual", courseName: "History" });
    const path = join(folder, "lecture.mp3");
    const created = requireStatus(
      await uploadMultipart(
        gateway.url,
        user.token,
        "/api/notes/upload/audio",
        { courseId: user.courseId },
        { path, name: "lecture.mp3", type: "audio/mpeg" },
      ),
      201,
      "upload",
    );
    expect(created.body.data.importJob).toMatchObject({ status: "PENDING", type: "audio_upload" });
    expect(await storedFilesOf(user.userId)).toContain("lecture.mp3");
    // The shared stack's worker would transcribe it (CPU the run is short of): nothing here needs the transcript.
    await api("POST", `/api/jobs/${created.body.data.importJob.id}/cancel`, { token: user.token });
  }, 30_000);
});
