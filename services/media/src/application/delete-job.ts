import { AppError } from "@study/platform/errors";
import { assertDeletable } from "../domain/import-job";
import type { GetJob } from "./get-job";
import { MAX_TRANSITION_ATTEMPTS } from "./job-transitions";
import type { ImportJobRepository } from "./ports/import-job-repository.port";

/** Deletes a finished job (COMPLETED, FAILED or CANCELLED); an active one is refused with JOB_ACTIVE. Its note stays. */
export class DeleteJob {
  constructor(
    private readonly jobs: ImportJobRepository,
    private readonly getJob: GetJob,
  ) {}

  async execute(userId: string, jobId: string): Promise<void> {
    for (let attempt = 1; attempt <= MAX_TRANSITION_ATTEMPTS; attempt += 1) {
      const { job } = await this.getJob.execute(userId, jobId);
      assertDeletable(job);
      if (await this.jobs.deleteFinished(userId, jobId, job.version)) return;
    }
    throw new AppError("unavailable", "CONCURRENT_UPDATE", "The job is being changed by someone else; try again");
  }
}
