import { requireUserId } from "@study/platform";
import type { ImportJob, JobStatus } from "../domain/import-job";
import type { ImportJobRepository } from "./ports/import-job-repository.port";

export const RECENT_JOBS = 5;

export interface JobStats {
  total: number;
  byStatus: { pending: number; inProgress: number; completed: number; failed: number; cancelled: number };
  /** Percentage (one decimal) of the finished imports (completed + failed) that completed; 0 when none. */
  successRate: number;
  /** The newest jobs. */
  recentJobs: ImportJob[];
  /**
   * The import queue as the user sees it: waiting (PENDING), active (IN_PROGRESS), completed, failed and
   * their sum (cancelled jobs left the queue). Counted from the database.
   */
  queueStats: { waiting: number; active: number; completed: number; failed: number; total: number };
}

/** Success rate in percent with one decimal. */
export function successRate(completed: number, failed: number): number {
  const finished = completed + failed;
  return finished === 0 ? 0 : Math.round((completed / finished) * 1000) / 10;
}

export function jobStats(counts: Record<JobStatus, number>, recentJobs: ImportJob[]): JobStats {
  const byStatus = {
    pending: counts.PENDING,
    inProgress: counts.IN_PROGRESS,
    completed: counts.COMPLETED,
    failed: counts.FAILED,
    cancelled: counts.CANCELLED,
  };
  return {
    total: Object.values(byStatus).reduce((sum, n) => sum + n, 0),
    byStatus,
    successRate: successRate(byStatus.completed, byStatus.failed),
    recentJobs,
    queueStats: {
      waiting: byStatus.pending,
      active: byStatus.inProgress,
      completed: byStatus.completed,
      failed: byStatus.failed,
      total: byStatus.pending + byStatus.inProgress + byStatus.completed + byStatus.failed,
    },
  };
}

export class GetJobStats {
  constructor(private readonly jobs: ImportJobRepository) {}

  async execute(userId: string): Promise<JobStats> {
    requireUserId(userId);
    const [counts, recent] = await Promise.all([
      this.jobs.countByStatus(userId),
      this.jobs.listOwned(userId, { sortBy: "createdAt", sortOrder: "desc", limit: RECENT_JOBS, offset: 0 }),
    ]);
    return jobStats(counts, recent.jobs.map((view) => view.job));
  }
}
