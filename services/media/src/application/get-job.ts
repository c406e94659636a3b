import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import type { ImportJobRepository, JobView } from "./ports/import-job-repository.port";

export class GetJob {
  constructor(private readonly jobs: Pick<ImportJobRepository, "findOwned">) {}

  /** The user's job with its note; another user's job or an unknown id is NOT_FOUND alike. */
  async execute(userId: string, jobId: string): Promise<JobView> {
    requireUserId(userId);
    const view = isUuid(jobId) ? await this.jobs.findOwned(userId, jobId) : null;
    if (!view) throw AppError.notFound("Job");
    return view;
  }
}
