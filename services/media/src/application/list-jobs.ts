import { requireUserId } from "@study/platform/ids";
import type { JobSource, JobStatus } from "../domain/import-job";
import { pageOf } from "./list-notes";
import type { ImportJobRepository, JobPage, JobSortField, SortOrder } from "./ports/import-job-repository.port";

export const DEFAULT_JOB_PAGE_SIZE = 20;

export class ListJobs {
  constructor(private readonly jobs: ImportJobRepository) {}

  /**
   * The user's jobs with their notes: filtered by status and source, sorted by createdAt (default),
   * updatedAt or completedAt (jobs without one last), descending by default; limit 1-100 (default 20).
   */
  async execute(
    userId: string,
    query: { status?: JobStatus; source?: JobSource; sortBy?: JobSortField; sortOrder?: SortOrder; limit?: number; offset?: number },
  ): Promise<JobPage & { limit: number; offset: number }> {
    requireUserId(userId);
    const page = pageOf({ limit: query.limit || DEFAULT_JOB_PAGE_SIZE, offset: query.offset });
    const result = await this.jobs.listOwned(userId, {
      status: query.status,
      source: query.source,
      sortBy: query.sortBy ?? "createdAt",
      sortOrder: query.sortOrder ?? "desc",
      ...page,
    });
    return { ...result, ...page };
  }
}
