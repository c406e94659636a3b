import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";
import { systemClock, type Clock } from "@study/platform/clock";
import { startJob } from "../domain/import-job";
import { moveTranscription } from "../domain/note";
import { transitionJob, type JobTransitionStore } from "./job-transitions";
import type { JobWithNote } from "./ports/import-job-repository.port";

/**
 * Pipeline: the worker took the job's ImportRequested message. PENDING → IN_PROGRESS (attempt counted,
 * progress 0, stage SETUP); the note becomes PROCESSING. A job already IN_PROGRESS starts a new attempt (the
 * message was redelivered after a worker stopped). Refused with JOB_ALREADY_FINISHED for a completed, failed
 * or cancelled job: the worker then drops the message. Returns the job with everything to import.
 */
export class StartJob {
  constructor(
    private readonly jobs: JobTransitionStore,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(jobId: string): Promise<JobWithNote> {
    if (!isUuid(jobId)) throw AppError.notFound("Job");
    return transitionJob(
      this.jobs,
      () => this.jobs.findWithNote(jobId),
      ({ job, note }) => {
        const now = this.clock.now();
        return { job: startJob(job, now), note: note ? moveTranscription(note, "PROCESSING", now) : null, events: [] };
      },
    );
  }
}
