import { describe, expect, it, vi } from "vitest";
import { StudyApiError, type ServerEvent, type UploadProgress } from "@study/sdk";
import { applyJobEvent, ImportQueue, MAX_STREAM_RETRIES, type ImportDeps, type JobState, type StartedImport } from "./import-queue";

/** A stream of server-sent events the test writes to. */
class EventChannel {
  private queue: ServerEvent[] = [];
  private waiting: (() => void) | null = null;
  private ended = false;
  private failure: unknown = null;
  opened = 0;

  push(data: Record<string, unknown>, event = "progress") {
    this.queue.push({ event, data });
    this.wake();
  }
  end() {
    this.ended = true;
    this.wake();
  }
  fail(error: unknown) {
    this.failure = error;
    this.wake();
  }
  /** Ready for the next connection: a broken or ended stream is opened again by the queue. */
  reset() {
    this.ended = false;
    this.failure = null;
  }
  private wake() {
    this.waiting?.();
    this.waiting = null;
  }
  async *read(signal: AbortSignal): AsyncGenerator<ServerEvent> {
    this.opened += 1;
    for (;;) {
      if (signal.aborted) return;
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.failure) {
        const failure = this.failure;
        this.reset();
        throw failure instanceof Error ? failure : new Error("stream failed");
      }
      if (this.ended) {
        this.reset();
        return;
      }
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
  }
}

interface PendingUpload {
  file: File;
  onProgress: (progress: UploadProgress) => void;
  signal: AbortSignal;
  resolve: (started: StartedImport) => void;
  reject: (error: unknown) => void;
}

function fakeApi() {
  const uploads: PendingUpload[] = [];
  const channels = new Map<string, EventChannel>();
  const channel = (jobId: string) => {
    let found = channels.get(jobId);
    if (!found) {
      found = new EventChannel();
      channels.set(jobId, found);
    }
    return found;
  };
  const cancelJob = vi.fn(async (_jobId: string) => undefined);
  const deps: ImportDeps = {
    upload: (file, { onProgress, signal }) =>
      new Promise<StartedImport>((resolve, reject) => {
        uploads.push({ file, onProgress, signal, resolve, reject });
        signal.addEventListener("abort", () => reject(new DOMException("The upload was cancelled.", "AbortError")), { once: true });
      }),
    events: (jobId, signal) => channel(jobId).read(signal),
    cancelJob,
    pause: async () => undefined,
  };
  return { deps, uploads, channel, cancelJob };
}

const audio = (name: string, size = 1000) => new File([new Uint8Array(size)], name, { type: "audio/mpeg" });

const started = (jobId: string, noteId = `note-of-${jobId}`): StartedImport => ({ jobId, noteId, noteTitle: noteId, status: "PENDING" });

/** Lets the queue's promises and async loops run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("applyJobEvent", () => {
  const job: JobState = { id: "j", status: "PENDING", progress: 0, stage: null, errorMessage: null };

  it("takes the status, progress and stage of a progress event", () => {
    expect(applyJobEvent(job, { event: "progress", data: { status: "IN_PROGRESS", progress: 40, stage: "TRANSCRIPTION" } })).toEqual({
      ...job,
      status: "IN_PROGRESS",
      progress: 40,
      stage: "TRANSCRIPTION",
    });
  });

  it("keeps the failure's message", () => {
    const failed = applyJobEvent(job, {
      event: "progress",
      data: { status: "FAILED", progress: 30, stage: "TRANSCRIPTION", errorMessage: "Download failed" },
    });
    expect(failed).toMatchObject({ status: "FAILED", errorMessage: "Download failed" });
  });

  it("ignores other events and data it does not understand", () => {
    expect(applyJobEvent(job, { event: "message", data: { status: "COMPLETED" } })).toBe(job);
    expect(applyJobEvent(job, { event: "progress", data: "not json" })).toBe(job);
    expect(applyJobEvent(job, { event: "progress", data: { status: "EXPLODED" } })).toBe(job);
    expect(applyJobEvent(job, { event: "progress", data: { status: "IN_PROGRESS", progress: 250, stage: "DANCING" } })).toMatchObject({
      progress: 100,
      stage: null,
    });
  });
});

describe("ImportQueue", () => {
  it("uploads queued files one at a time, with progress, then follows each job's stages until it is COMPLETED", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    const seen: string[] = [];
    queue.subscribe(() =>
      seen.push(
        queue
          .getSnapshot()
          .map((item) => item.phase)
          .join(","),
      ),
    );
    const [first, second] = queue.addFiles([audio("week-1.mp3", 2000), audio("week-2.mp3")]);

    expect(queue.getSnapshot().map((item) => [item.label, item.phase])).toEqual([
      ["week-1.mp3", "uploading"],
      ["week-2.mp3", "queued"],
    ]);
    expect(api.uploads).toHaveLength(1);
    api.uploads[0].onProgress({ loaded: 500, total: 2000 });
    expect(queue.getSnapshot()[0].upload).toEqual({ loaded: 500, total: 2000 });

    api.uploads[0].resolve({ ...started("job-1"), duplicateOf: null });
    await settle();
    // The second file starts once the first is uploaded, while the first job runs.
    expect(api.uploads.map((upload) => upload.file.name)).toEqual(["week-1.mp3", "week-2.mp3"]);
    const item = () => queue.getSnapshot().find((entry) => entry.key === first);
    expect(item()).toMatchObject({ phase: "importing", noteId: "note-of-job-1", job: { id: "job-1", status: "PENDING" } });

    api.channel("job-1").push({ status: "PENDING", progress: 0, stage: null });
    api.channel("job-1").push({ status: "IN_PROGRESS", progress: 10, stage: "SETUP" });
    await settle();
    expect(item()?.job).toMatchObject({ status: "IN_PROGRESS", stage: "SETUP", progress: 10 });
    api.channel("job-1").push({ status: "IN_PROGRESS", progress: 50, stage: "TRANSCRIPTION" });
    api.channel("job-1").push({ status: "COMPLETED", progress: 100, stage: "NOTE_CREATION" });
    await settle();
    expect(item()).toMatchObject({ phase: "completed", job: { status: "COMPLETED", progress: 100 } });
    expect(queue.getSnapshot().find((entry) => entry.key === second)?.phase).toBe("uploading");
    expect(seen).toContain("importing,uploading");
  });

  it("cancels an upload in flight (nothing reaches the API) and goes on with the next file", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    const [first, second, third] = queue.addFiles([audio("a.mp3"), audio("b.mp3"), audio("c.mp3")]);
    await queue.cancel(third);
    await queue.cancel(first);
    expect(api.uploads[0].signal.aborted).toBe(true);
    await settle();
    expect(queue.getSnapshot().map((item) => [item.key, item.phase])).toEqual([
      [first, "cancelled"],
      [second, "uploading"],
      [third, "cancelled"],
    ]);
    // The cancelled third file never starts uploading.
    expect(api.uploads.map((upload) => upload.file.name)).toEqual(["a.mp3", "b.mp3"]);
  });

  it("shows a refused upload as that file's failure", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    const refusal = new StudyApiError(400, "UNEXPECTED_FILE", "Unsupported audio format: the file is not audio.");
    queue.addFiles([audio("notes.txt")]);
    api.uploads[0].reject(refusal);
    await settle();
    expect(queue.getSnapshot()[0]).toMatchObject({ phase: "failed", error: refusal });
  });

  it("shows a failed job with its error message", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    const key = queue.addStarted("audio", "https://example.com/lecture.mp3", started("job-f"));
    api
      .channel("job-f")
      .push({ status: "FAILED", progress: 12, stage: "SETUP", errorMessage: "Unsupported audio format: the file could not be read as audio" });
    await settle();
    expect(queue.getSnapshot().find((item) => item.key === key)).toMatchObject({
      phase: "failed",
      job: { status: "FAILED", errorMessage: "Unsupported audio format: the file could not be read as audio" },
    });
  });

  it("cancels a running import through the API; the stream's CANCELLED ends it", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    const key = queue.addStarted("video", "https://video.example.com/lecture", started("job-c"));
    api.channel("job-c").push({ status: "IN_PROGRESS", progress: 30, stage: "TRANSCRIPTION" });
    await settle();
    const cancelling = queue.cancel(key);
    expect(queue.getSnapshot()[0].cancelling).toBe(true);
    await cancelling;
    expect(api.cancelJob).toHaveBeenCalledWith("job-c");
    api.channel("job-c").push({ status: "CANCELLED", progress: 30, stage: "TRANSCRIPTION", errorMessage: "Cancelled by user" });
    await settle();
    expect(queue.getSnapshot()[0]).toMatchObject({ phase: "cancelled", cancelling: false });
  });

  it("shows a refused cancel and keeps following the job", async () => {
    const api = fakeApi();
    const refusal = new StudyApiError(400, "JOB_ALREADY_FINISHED", "The import already finished.");
    api.cancelJob.mockRejectedValueOnce(refusal);
    const queue = new ImportQueue(api.deps);
    const key = queue.addStarted("audio", "https://example.com/a.mp3", started("job-r"));
    await queue.cancel(key);
    expect(queue.getSnapshot()[0]).toMatchObject({ phase: "importing", error: refusal, cancelling: false });
    api.channel("job-r").push({ status: "COMPLETED", progress: 100, stage: "NOTE_CREATION" });
    await settle();
    expect(queue.getSnapshot()[0].phase).toBe("completed");
  });

  it("opens a stream that ended early again, and gives up with an error after a few tries", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    queue.addStarted("audio", "https://example.com/a.mp3", started("job-s"));
    const channel = api.channel("job-s");
    await settle();
    channel.push({ status: "IN_PROGRESS", progress: 20, stage: "SETUP" });
    channel.end();
    await settle();
    expect(channel.opened).toBe(2);
    expect(queue.getSnapshot()[0].error).toBeUndefined();

    for (let attempt = 0; attempt < MAX_STREAM_RETRIES; attempt++) {
      channel.fail(new StudyApiError(0, "NETWORK_ERROR", "The server could not be reached."));
      await settle();
    }
    expect(queue.getSnapshot()[0].error).toMatchObject({ code: "NETWORK_ERROR" });

    // "Try again" follows it once more.
    queue.retryFollowing(queue.getSnapshot()[0].key);
    expect(queue.getSnapshot()[0].error).toBeUndefined();
    channel.push({ status: "COMPLETED", progress: 100, stage: "NOTE_CREATION" });
    await settle();
    expect(queue.getSnapshot()[0].phase).toBe("completed");
  });

  it("stops uploads and streams when the page is left, and takes ended items off the list", async () => {
    const api = fakeApi();
    const queue = new ImportQueue(api.deps);
    const done = queue.addStarted("audio", "https://example.com/done.mp3", { ...started("job-d"), status: "COMPLETED" });
    queue.addFiles([audio("a.mp3"), audio("b.mp3")]);
    queue.dispose();
    await settle();
    expect(api.uploads[0].signal.aborted).toBe(true);
    expect(queue.getSnapshot().map((item) => item.phase)).toEqual(["completed", "cancelled", "cancelled"]);
    expect(api.uploads).toHaveLength(1);
    queue.dismiss(done);
    expect(queue.getSnapshot()).toHaveLength(2);
  });
});
