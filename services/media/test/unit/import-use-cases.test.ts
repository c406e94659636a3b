import { AppError } from "@study/platform";
import { CreateImport } from "../../src/application/create-import";
import type { ImportJobRepository, JobView } from "../../src/application/ports/import-job-repository.port";
import type { JobProgress, JobProgressFeed, JobProgressListener } from "../../src/application/ports/job-progress-feed.port";
import { WatchImportJob } from "../../src/application/watch-import-job";
import type { ImportJob } from "../../src/domain/import-job";
import type { Note } from "../../src/domain/note";
import { aJob } from "./fixtures";
import { appErrorOf } from "@study/testkit/refusal";

const OWN_COURSE = "0190f5c2-0000-7000-8000-000000000003";
const FOREIGN_COURSE = "0190f5c2-0000-7000-8000-000000000004";

/** CreateImport over in-memory ports, recording what was asked of each. */
function createImportWith(options: { videoTitle?: string } = {}) {
  const created: { note: Note; job: ImportJob }[] = [];
  const asked: string[] = [];
  const jobs: Pick<ImportJobRepository, "createImport"> = {
    async createImport(note: Note, job: ImportJob) {
      created.push({ note, job });
    },
  };
  const useCase = new CreateImport(
    jobs,
    {
      async check(url: string) {
        asked.push(`download policy ${url}`);
      },
    },
    {
      async assertOwned(_userId: string, courseId: string) {
        asked.push(`course ${courseId}`);
        if (courseId !== OWN_COURSE) throw AppError.notFound("Course");
      },
    },
    {
      async getInfo(url: string) {
        asked.push(`video ${url}`);
        return { title: options.videoTitle ?? "Lecture 7: Enzymes", duration: 61.5, description: "", uploader: "Prof" };
      },
    },
  );
  return { useCase, created, asked };
}

describe("CreateImport: media's import rules", () => {
  it("an audio URL: format from the file name, the course checked, the spec's title, the download policy", async () => {
    const { useCase, created, asked } = createImportWith();
    const url = "https://cdn.example.com/lecture.flac";
    const { note, job, videoInfo } = await useCase.execute("alice", { type: "AUDIO_IMPORT", courseId: OWN_COURSE, sourceUrl: url });
    expect(asked).toEqual([`course ${OWN_COURSE}`, `download policy ${url}`]);
    expect(videoInfo).toBeNull();
    expect(note).toMatchObject({
      title: "Audio Import: lecture.flac",
      metadata: { source: "audio_url", mimeType: "audio/flac", originalFilename: "lecture.flac" },
    });
    expect(job).toMatchObject({ speedMultiplier: 2, mimeType: "audio/flac" });
    expect(created).toHaveLength(1);
  });

  it("refuses an unsupported format before asking anyone, and a course of someone else with NOT_FOUND", async () => {
    const { useCase, created, asked } = createImportWith();
    const wrongType = await appErrorOf(
      useCase.execute("alice", { type: "AUDIO_IMPORT", courseId: FOREIGN_COURSE, sourceUrl: "https://x.example/a.mp3", mimeType: "text/plain" }),
    );
    expect(wrongType).toMatchObject({ code: "UNEXPECTED_FILE" });
    const wrongName = await appErrorOf(
      useCase.execute("alice", { type: "AUDIO_IMPORT", courseId: OWN_COURSE, sourceUrl: "https://x.example/notes.txt" }),
    );
    expect(wrongName).toMatchObject({ code: "UNEXPECTED_FILE" });
    expect(asked).toEqual([]);
    const foreign = await appErrorOf(
      useCase.execute("mallory", { type: "AUDIO_IMPORT", courseId: FOREIGN_COURSE, sourceUrl: "https://x.example/a.mp3" }),
    );
    expect(foreign).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    // A malformed course id is the courses service's NOT_FOUND too, as it always was through the gateway.
    expect(
      await appErrorOf(useCase.execute("mallory", { type: "AUDIO_IMPORT", courseId: "abc", sourceUrl: "https://x.example/a.mp3" })),
    ).toMatchObject({ code: "NOT_FOUND" });
    expect(created).toEqual([]);
  });

  it("checks the speed multiplier: 1 or 2, 2 when absent", async () => {
    const { useCase } = createImportWith();
    const draft = { type: "AUDIO_IMPORT" as const, courseId: OWN_COURSE, sourceUrl: "https://x.example/a.mp3" };
    expect((await useCase.execute("alice", { ...draft, speedMultiplier: 1 })).job.speedMultiplier).toBe(1);
    for (const speedMultiplier of [0, 3, 1.5, Number.NaN]) {
      expect(await appErrorOf(useCase.execute("alice", { ...draft, speedMultiplier }))).toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ field: "speedMultiplier", message: "must be 1 or 2" }],
      });
    }
  });

  it("a video: the course first, then its metadata, whose title (shortened) names the note", async () => {
    const long = "🧬".repeat(300);
    const { useCase, asked } = createImportWith({ videoTitle: long });
    const url = "https://video.example.com/watch?v=1";
    const { note, videoInfo } = await useCase.execute("alice", { type: "VIDEO_IMPORT", courseId: OWN_COURSE, sourceUrl: url });
    expect(asked).toEqual([`course ${OWN_COURSE}`, `video ${url}`]);
    expect(videoInfo).toMatchObject({ title: long });
    expect(note.title).toBe("🧬".repeat(255));
    const other = createImportWith();
    await appErrorOf(other.useCase.execute("mallory", { type: "VIDEO_IMPORT", courseId: FOREIGN_COURSE, sourceUrl: url }));
    expect(other.asked).toEqual([`course ${FOREIGN_COURSE}`]);
  });

  it("keeps a title the caller gave, checked as typed: at most 255 characters, no NUL", async () => {
    const { useCase, asked } = createImportWith();
    const draft = { type: "VIDEO_IMPORT" as const, courseId: OWN_COURSE, sourceUrl: "https://video.example.com/v" };
    expect((await useCase.execute("alice", { ...draft, title: " Mine " })).note.title).toBe("Mine");
    expect(asked).toEqual([`course ${OWN_COURSE}`]);
    expect(await appErrorOf(useCase.execute("alice", { ...draft, title: "x".repeat(256) }))).toMatchObject({
      details: [{ field: "title", message: "must be at most 255 characters" }],
    });
    expect(await appErrorOf(useCase.execute("alice", { ...draft, title: "a\u0000b" }))).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "title", message: "must not contain a NUL character" }],
    });
  });
});

/** A feed whose changes the test publishes by hand; `subscribed` resolves when a subscription is in place. */
function manualFeed() {
  const listeners = new Set<JobProgressListener>();
  let subscribed!: () => void;
  const whenSubscribed = new Promise<void>((resolve) => (subscribed = resolve));
  const feed: JobProgressFeed = {
    async subscribe(_jobId, listener) {
      listeners.add(listener);
      subscribed();
      return { close: () => listeners.delete(listener) };
    },
  };
  return {
    feed,
    whenSubscribed,
    listeners,
    publish: (progress: JobProgress) => listeners.forEach((listener) => listener.onChange(progress)),
    resync: () => listeners.forEach((listener) => listener.onResync()),
  };
}

const progressOf = (job: ImportJob): JobProgress => ({
  jobId: job.id,
  status: job.status,
  progress: job.progress,
  stage: job.stage,
  errorMessage: job.errorMessage,
  version: job.version,
});

describe("WatchImportJob: the job's recorded states, pushed", () => {
  const userId = "alice";

  function repositoryOf(read: () => ImportJob | null): Pick<ImportJobRepository, "findOwned"> {
    return {
      async findOwned(owner: string) {
        const job = read();
        return owner === userId && job ? ({ job, note: null } satisfies JobView) : null;
      },
    };
  }

  it("sends the current state, then every change in order (none lost between the read and the subscription), ending with the final state", async () => {
    const pending = aJob("PENDING", { version: 0 });
    const states = [
      { ...pending, status: "IN_PROGRESS", stage: "SETUP", progress: 0, version: 1 },
      { ...pending, status: "IN_PROGRESS", stage: "TRANSCRIPTION", progress: 25, version: 2 },
      { ...pending, status: "IN_PROGRESS", stage: "CONTENT_PROCESSING", progress: 75, version: 3 },
      { ...pending, status: "IN_PROGRESS", stage: "NOTE_CREATION", progress: 95, version: 4 },
      { ...pending, status: "COMPLETED", stage: "NOTE_CREATION", progress: 100, version: 5 },
    ] satisfies ImportJob[];
    const { feed, publish } = manualFeed();
    // The first change is recorded after the subscription but before the read: the read already holds it.
    const watch = new WatchImportJob(
      repositoryOf(() => {
        publish(progressOf(states[0]));
        return states[0];
      }),
      feed,
    );
    const received: JobProgress[] = [];
    const done = (async () => {
      for await (const state of watch.execute(userId, pending.id, new AbortController().signal)) received.push(state);
    })();
    await new Promise((resolve) => setImmediate(resolve));
    for (const state of states.slice(1)) publish(progressOf(state));
    publish(progressOf({ ...pending, status: "COMPLETED", progress: 100, version: 6 }));
    await done;
    expect(received.map((state) => [state.stage, state.status, state.version])).toEqual([
      ["SETUP", "IN_PROGRESS", 1],
      ["TRANSCRIPTION", "IN_PROGRESS", 2],
      ["CONTENT_PROCESSING", "IN_PROGRESS", 3],
      ["NOTE_CREATION", "IN_PROGRESS", 4],
      ["NOTE_CREATION", "COMPLETED", 5],
    ]);
  });

  it("ends at once for a finished job, reads again after a resync, and unsubscribes when the caller leaves", async () => {
    const finished = aJob("FAILED", { version: 3, errorMessage: "Download failed" });
    const first = manualFeed();
    const once: JobProgress[] = [];
    for await (const state of new WatchImportJob(
      repositoryOf(() => finished),
      first.feed,
    ).execute(userId, finished.id, new AbortController().signal))
      once.push(state);
    expect(once).toEqual([progressOf(finished)]);
    expect(first.listeners.size).toBe(0);

    let current: ImportJob = aJob("IN_PROGRESS", { version: 2, stage: "TRANSCRIPTION", progress: 40 });
    const second = manualFeed();
    const leave = new AbortController();
    const received: JobProgress[] = [];
    const done = (async () => {
      for await (const state of new WatchImportJob(
        repositoryOf(() => current),
        second.feed,
      ).execute(userId, current.id, leave.signal)) {
        received.push(state);
        if (received.length === 2) leave.abort();
      }
    })();
    await second.whenSubscribed;
    await new Promise((resolve) => setImmediate(resolve));
    // The feed lost its connection and is back: the job is read again and its newer state sent.
    current = { ...current, progress: 60, version: 4 };
    second.resync();
    await done;
    expect(received.map((state) => state.version)).toEqual([2, 4]);
    expect(second.listeners.size).toBe(0);
  });

  it("answers NOT_FOUND for another user's job or a malformed id, sending nothing", async () => {
    const job = aJob("PENDING");
    const { feed, listeners } = manualFeed();
    const watch = new WatchImportJob(
      repositoryOf(() => job),
      feed,
    );
    const first = (userOrId: [string, string]) => watch.execute(userOrId[0], userOrId[1], new AbortController().signal).next();
    expect(await appErrorOf(first(["mallory", job.id]))).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    expect(await appErrorOf(first([userId, "not-a-uuid"]))).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    expect(listeners.size).toBe(0);
  });
});
