import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";
import { systemClock, type Clock } from "@study/platform/clock";
import { reportProgress, type ImportJob, type ProgressStage } from "../domain/import-job";
import { transitionJob, type JobTransitionStore } from "./job-transitions";

/**
 * Pipeline: records the progress of a running job (0-100 within the stage's range: setup 0-25,
 * transcription 25-75, content processing 75-95, note creation 95-100; see progressWithin). Progress never
 * goes back: a lower value is ignored. Refused with JOB_ALREADY_FINISHED once the job was cancelled (or
 * otherwise finished): the worker stops its work on that answer.
 */
export class ReportProgress {
  constructor(
    private readonly jobs: JobTransitionStore,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(jobId: string, stage: ProgressStage, progress: number): Promise<ImportJob> {
    if (!isUuid(jobId)) throw AppError.notFound("Job");
    const { job } = await transitionJob(
      this.jobs,
      () => this.jobs.findWithNote(jobId),
      ({ job: current }) => {
        const next = reportProgress(current, stage, progress, this.clock.now());
        return next === current ? null : { job: next, note: null, events: [] };
      },
    );
    return job;
  }
}
