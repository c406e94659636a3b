import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { isFinished, type ImportJob } from "../domain/import-job";
import type { ImportJobRepository } from "./ports/import-job-repository.port";
import type { JobProgress, JobProgressFeed } from "./ports/job-progress-feed.port";

const progressOf = (job: ImportJob): JobProgress => ({
  jobId: job.id,
  status: job.status,
  progress: job.progress,
  stage: job.stage,
  errorMessage: job.errorMessage,
  version: job.version,
});

/**
 * Follows one of the user's import jobs: its current state, then every change recorded after it, in order,
 * ending with a final state (COMPLETED, FAILED, CANCELLED). It subscribes before reading the job, so that no
 * change between the read and the subscription is lost; a change already contained in the read (an older or
 * equal version) is skipped. Another user's job or an unknown id is NOT_FOUND, before anything is sent.
 */
export class WatchImportJob {
  constructor(
    private readonly jobs: Pick<ImportJobRepository, "findOwned">,
    private readonly feed: JobProgressFeed,
  ) {}

  async *execute(userId: string, jobId: string, signal: AbortSignal): AsyncGenerator<JobProgress> {
    requireUserId(userId);
    if (!isUuid(jobId)) throw AppError.notFound("Job");
    const pending: (JobProgress | "resync")[] = [];
    let wake: (() => void) | null = null;
    const push = (item: JobProgress | "resync") => {
      pending.push(item);
      wake?.();
    };
    const subscription = await this.feed.subscribe(jobId, { onChange: push, onResync: () => push("resync") });
    const stop = () => wake?.();
    signal.addEventListener("abort", stop);
    try {
      const read = async () => {
        const view = await this.jobs.findOwned(userId, jobId);
        return view && progressOf(view.job);
      };
      let current = await read();
      if (!current) throw AppError.notFound("Job");
      yield current;
      while (!isFinished(current.status) && !signal.aborted) {
        const next = pending.shift();
        if (next === undefined) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = null;
          continue;
        }
        const candidate = next === "resync" ? await read() : next;
        // Deleted meanwhile (only a finished job can be, or its owner's account went): nothing more to follow.
        if (!candidate) return;
        if (candidate.version <= current.version) continue;
        current = candidate;
        yield current;
      }
    } finally {
      signal.removeEventListener("abort", stop);
      subscription.close();
    }
  }
}
