import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { systemClock, type Clock } from "@study/platform/clock";
import { jobNotRetryable, retryJob } from "../domain/import-job";
import { moveTranscription } from "../domain/note";
import { transitionJob, type JobTransitionStore } from "./job-transitions";
import { importRequested, noteImportStarted } from "./media-events";
import type { GetJob } from "./get-job";
import type { JobView } from "./ports/import-job-repository.port";

/**
 * Retries the user's CANCELLED or FAILED import: the job becomes PENDING again (progress, error, attempts and
 * times start over) and its note PENDING, and the work message is queued again with what the job kept — the
 * stored upload, the audio or video URL, the speed — together with `media.note.import_started.v1`, in one
 * transaction (outbox). The worker checks a URL again when it downloads. Another user's or an unknown job is
 * NOT_FOUND; any other status, or a job whose note was deleted, is JOB_NOT_RETRYABLE (409).
 *
 * Sound against what an earlier run left behind: a work message of the earlier run still queued only starts
 * the same job on the same kept source (a second start is a new attempt, and the run it replaces stops when it
 * sees the job's attempt change), and a run still busy with the job when it was cancelled stops as soon as it
 * sees that its attempt is no longer the job's (see ProcessImport).
 */
export class RetryJob {
  constructor(
    private readonly jobs: JobTransitionStore,
    private readonly getJob: GetJob,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(userId: string, jobId: string): Promise<JobView> {
    requireUserId(userId);
    if (!isUuid(jobId)) throw AppError.notFound("Job");
    await transitionJob(
      this.jobs,
      async () => {
        const current = await this.jobs.findWithNote(jobId);
        return current?.job.userId === userId ? current : null;
      },
      ({ job, note }) => {
        const now = this.clock.now();
        const retried = retryJob(job, now);
        if (!note) throw jobNotRetryable("The note of this import was deleted: import the file again");
        return {
          job: retried,
          note: moveTranscription(note, "PENDING", now),
          events: [importRequested(retried)],
          noteEvents: (saved) => [noteImportStarted(saved, retried)],
        };
      },
    );
    return this.getJob.execute(userId, jobId);
  }
}
