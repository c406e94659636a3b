import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  librivoxClip,
  runFfmpeg,
  signUpWithCourse,
  startMediaServer,
  startTestStack,
  waitForJob,
  type ImportJobView,
  type LocalMediaServer,
  type MediaRoute,
  type TestStack,
} from "@study/testkit";

/** Starts of one import before it fails (MEDIA_MAX_ATTEMPTS of this stack). */
const MAX_ATTEMPTS = 2;

/**
 * An audio file served in two halves: the first at once, the second only once `release()` was called. A
 * worker downloading it is held mid-job (IN_PROGRESS, in the setup stage) for as long as the test needs.
 */
function heldDownload(data: Buffer): { route: MediaRoute; release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const half = Math.floor(data.length / 2);
  const route: MediaRoute = (_request, response) => {
    response.writeHead(200, { "content-type": "audio/mpeg", "content-length": data.length });
    response.write(data.subarray(0, half));
    void released.then(() => {
      if (!response.destroyed) response.end(data.subarray(half));
    });
  };
  return { route, release };
}

/**
 * A media worker that dies for real (SIGKILL: no shutdown code runs, its import's message is unacked) while an
 * import is IN_PROGRESS: the broker hands the message to the restarted worker, which starts the job again —
 * or fails it with a clear message once it has been started MEDIA_MAX_ATTEMPTS times. And one stopped in order
 * (SIGTERM) while it transcribes: the import goes back to the queue and is finished by the worker started again.
 */
describe("a media worker killed mid-import", () => {
  let stack: TestStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;
  let workDirectory: string;
  let server: LocalMediaServer;
  let clip: Buffer;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "worker-crash-e2e-"));
    workDirectory = join(folder, "work");
    // Served: the clip and the lecture (the held downloads are routes).
    const served = join(folder, "served");
    await mkdir(served);
    await Promise.all([
      runFfmpeg(["-i", librivoxClip("0880"), join(served, "clip.mp3")]),
      // ~14 s of speech as MP3: three clips one after the other.
      runFfmpeg([
        ...["0880", "0890", "0920"].flatMap((id) => ["-i", librivoxClip(id)]),
        ...["-filter_complex", "[0:a][1:a][2:a]concat=n=3:v=0:a=1[out]", "-map", "[out]", join(served, "lecture.mp3")],
      ]),
    ]);
    clip = await readFile(join(served, "clip.mp3"));
    server = await startMediaServer({ root: served });
    stack = await startTestStack({
      services: ["courses", "media", "notifications"],
      env: {
        MEDIA_DOWNLOAD_ALLOWLIST: `127.0.0.1:${server.port}`,
        MEDIA_WORK_DIR: workDirectory,
        MEDIA_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      },
    });
    api = httpClient(stack.gatewayUrl);
  }, 120_000);

  afterAll(async () => {
    if (process.env.E2E_DUMP_LOGS) console.log(stack?.logs.join("\n"));
    await stack?.stopAll();
    await server?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const signUp = (name: string) => signUpWithCourse(api, { name });

  const jobOf = async (token: string, jobId: string) => (await api("GET", `/api/jobs/${jobId}`, { token })).body.data as ImportJobView;
  const downloadsOf = (path: string) => server.requests.filter((request) => request.method === "GET" && request.path === path).length;

  /** Imports the held file and waits until the worker is downloading it (job IN_PROGRESS). */
  async function importHeld(user: { token: string; courseId: string }, path: string) {
    const response = await api("POST", "/api/notes/import/audio", { token: user.token, body: { url: server.urlOf(path), courseId: user.courseId } });
    expect(response.status).toBe(201);
    const { note, importJob } = response.body.data;
    await eventually(async () => downloadsOf(path) === 1, 20_000);
    expect((await jobOf(user.token, importJob.id)).status).toBe("IN_PROGRESS");
    return { noteId: note.id as string, jobId: importJob.id as string };
  }

  /** SIGKILLs the worker mid-download, then checks the job was left IN_PROGRESS with the dead worker's files. */
  async function killWorker(token: string, jobId: string): Promise<string> {
    const folderOfKilled = `worker-${stack.pid("media-worker")}`;
    await stack.stop("media-worker", "SIGKILL");
    expect((await jobOf(token, jobId)).status).toBe("IN_PROGRESS");
    expect(await readdir(workDirectory)).toContain(folderOfKilled);
    return folderOfKilled;
  }

  const finished = (token: string, jobId: string) => waitForJob(api, token, jobId, { timeoutMs: 30_000 });

  it("restarts the import in the restarted worker and completes it; the dead worker's temporary files are removed", async () => {
    const user = await signUp("Survivor");
    const held = heldDownload(clip);
    server.route("/restarted.mp3", held.route);
    const { noteId, jobId } = await importHeld(user, "/restarted.mp3");
    const folderOfKilled = await killWorker(user.token, jobId);

    held.release();
    await stack.start("media-worker");
    const job = await finished(user.token, jobId);
    expect(job).toMatchObject({ status: "COMPLETED", progress: 100, errorMessage: null });
    // Downloaded again from the start by the second attempt.
    expect(downloadsOf("/restarted.mp3")).toBe(2);
    const note = (await api("GET", `/api/notes/${noteId}`, { token: user.token })).body.data;
    expect(note.transcriptionStatus).toBe("COMPLETED");
    expect(note.content).toMatch(/\w+/);
    expect(await readdir(workDirectory)).not.toContain(folderOfKilled);
  }, 45_000);

  it(`fails the import with a clear message when the worker dies on each of its ${MAX_ATTEMPTS} starts`, async () => {
    const user = await signUp("Doomed");
    server.route("/never-finishes.mp3", heldDownload(clip).route);
    const { noteId, jobId } = await importHeld(user, "/never-finishes.mp3");
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      await killWorker(user.token, jobId);
      await stack.start("media-worker");
      await eventually(async () => downloadsOf("/never-finishes.mp3") === attempt, 20_000);
    }
    await killWorker(user.token, jobId);
    await stack.start("media-worker");

    const job = await finished(user.token, jobId);
    expect(job).toMatchObject({ status: "FAILED", errorMessage: "Processing was interrupted too many times" });
    // The delivery after the last start failed the job without downloading again.
    expect(downloadsOf("/never-finishes.mp3")).toBe(MAX_ATTEMPTS);
    const note = (await api("GET", `/api/notes/${noteId}`, { token: user.token })).body.data;
    expect(note.transcriptionStatus).toBe("FAILED");
    // The failure is announced as an ALERT (successes and starts are SYSTEM notifications).
    const failureNotice = await eventually(async () => {
      const list = (await api("GET", "/api/notifications", { token: user.token })).body.data.notifications as { type: string; content: string }[];
      return list.find((entry) => entry.content.includes("Processing was interrupted too many times"));
    }, 10_000);
    expect(failureNotice).toMatchObject({ type: "ALERT" });
  }, 45_000);

  it("finishes an import whose worker stopped mid-job: the message is redelivered and the job restarts", async () => {
    const user = await signUp("Resilient");
    /** The per-job temporary folders of every worker process (`<work dir>/worker-<pid>/job-…`). */
    const workFolders = async () =>
      (await readdir(workDirectory, { recursive: true }).catch(() => [] as string[])).filter((path) => /(^|\/)job-[^/]+$/.test(path));
    // The ≈ 14 s lecture at speed 2: 7 s to transcribe, twice (stopped, then restarted from the start). The worker
    // is stopped within a poll of the transcription starting, so a longer file would only slow the restart down.
    const response = await api("POST", "/api/notes/import/audio", {
      token: user.token,
      body: { url: server.urlOf("/lecture.mp3"), courseId: user.courseId, speedMultiplier: 2 },
    });
    const jobId = response.body.data.importJob.id as string;
    await waitForJob(api, user.token, jobId, {
      until: (job) => job.status === "IN_PROGRESS" && job.progress >= 25,
      timeoutMs: 20_000,
      intervalMs: 50,
    });
    await stack.stop("media-worker");
    expect((await jobOf(user.token, jobId)).status).toBe("IN_PROGRESS");
    // While no worker runs, the broker holds both imports: the interrupted one (back in the queue) and a new one.
    const second = await api("POST", "/api/notes/import/audio", {
      token: user.token,
      body: { url: server.urlOf("/clip.mp3"), courseId: user.courseId },
    });
    expect(second.status).toBe(201);
    const stats = await eventually(async () => {
      const data = (await api("GET", "/api/jobs/stats", { token: user.token })).body.data;
      return data.queueStats.waiting === 2 ? data : undefined;
    }, 10_000);
    // From the database alone, waiting would be 1 (PENDING) with 1 IN_PROGRESS.
    expect(stats.byStatus).toMatchObject({ pending: 1, inProgress: 1 });
    expect(stats.queueStats).toMatchObject({ waiting: 2, active: 1, total: 3 });
    await stack.start("media-worker");
    // Two transcriptions of the lecture, a worker restart and a second import: under a loaded CI machine (two test
    // files at a time) this took up to ≈ 50 s; the limits only bound a hang.
    const job = await waitForJob(api, user.token, jobId, { timeoutMs: 60_000 });
    expect(job.status).toBe("COMPLETED");
    expect((await finished(user.token, second.body.data.importJob.id)).status).toBe("COMPLETED");
    // The job is COMPLETED before the worker removes its scratch folder: wait for the removal, not for a time.
    await eventually(async () => (await workFolders()).length === 0, 10_000);
    expect(await workFolders()).toEqual([]);
  }, 120_000);
});
