import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import { systemClock, type Clock } from "@study/platform/clock";
import { cancelJob } from "../domain/import-job";
import { moveTranscription } from "../domain/note";
import { transitionJob, type JobTransitionStore } from "./job-transitions";
import { noteUpdated } from "./media-events";
import type { GetJob } from "./get-job";
import type { JobView } from "./ports/import-job-repository.port";

/**
 * Cancels the user's PENDING or IN_PROGRESS job: the job becomes CANCELLED with errorMessage "Cancelled by
 * user", its note FAILED (a note has no cancelled state), announced by NoteUpdated. A completed, failed or cancelled job is refused
 * with JOB_ALREADY_FINISHED. A worker busy with the job sees CANCELLED at its next progress report and stops.
 */
export class CancelJob {
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
        const cancelled = cancelJob(job, now);
        const failedNote = note ? moveTranscription(note, "FAILED", now) : null;
        // The note's new status reaches search (NoteImportFailed would alert the user of a failure they chose).
        return { job: cancelled, note: failedNote, events: [], noteEvents: (saved) => [noteUpdated(saved)] };
      },
    );
    return this.getJob.execute(userId, jobId);
  }
}
