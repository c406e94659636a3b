import { requireUserId } from "@study/platform/ids";
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
   * The import queue: waiting = imports waiting in the worker's queue on the broker (every user's: the line the
   * caller's imports stand in; the caller's PENDING jobs when the broker cannot be asked), active, completed and
   * failed = the caller's jobs in the database, total = their sum (cancelled jobs left the queue).
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

/** Port: the broker's view of the import queue. */
export interface ImportQueue {
  /** Messages waiting for a worker; null when unknown (no queue yet, broker unreachable). */
  waiting(): Promise<number | null>;
}

export class GetJobStats {
  constructor(
    private readonly jobs: ImportJobRepository,
    private readonly queue?: ImportQueue,
  ) {}

  async execute(userId: string): Promise<JobStats> {
    requireUserId(userId);
    const [counts, recent, waiting] = await Promise.all([
      this.jobs.countByStatus(userId),
      this.jobs.listOwned(userId, { sortBy: "createdAt", sortOrder: "desc", limit: RECENT_JOBS, offset: 0 }),
      // eslint-disable-next-line no-restricted-syntax -- the broker's count is optional: without it the stats show the database's pending count
      this.queue ? this.queue.waiting().catch(() => null) : Promise.resolve(null),
    ]);
    const stats = jobStats(
      counts,
      recent.jobs.map((view) => view.job),
    );
    if (waiting !== null) {
      const { queueStats } = stats;
      queueStats.waiting = waiting;
      queueStats.total = waiting + queueStats.active + queueStats.completed + queueStats.failed;
    }
    return stats;
  }
}
