import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";
import { systemClock, type Clock } from "@study/platform/clock";
import { failJob } from "../domain/import-job";
import { moveTranscription } from "../domain/note";
import { transitionJob, type JobTransitionStore } from "./job-transitions";
import { noteImportFailed } from "./media-events";
import type { JobWithNote } from "./ports/import-job-repository.port";

/**
 * Pipeline: the import failed (invalid or private video, unsupported format, poor audio, time-out, ...). The
 * job becomes FAILED with the message (at most 1000 characters), the note FAILED; NoteImportFailed tells the
 * user. Refused with JOB_ALREADY_FINISHED for a job that already finished (e.g. cancelled).
 */
export class FailJob {
  constructor(
    private readonly jobs: JobTransitionStore,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(jobId: string, errorMessage: string): Promise<JobWithNote> {
    if (!isUuid(jobId)) throw AppError.notFound("Job");
    return transitionJob(
      this.jobs,
      () => this.jobs.findWithNote(jobId),
      ({ job, note }) => {
        const now = this.clock.now();
        const failed = failJob(job, errorMessage, now);
        const failedNote = note ? moveTranscription(note, "FAILED", now) : null;
        return { job: failed, note: failedNote, events: [], noteEvents: (saved) => [noteImportFailed(saved, failed)] };
      },
    );
  }
}
