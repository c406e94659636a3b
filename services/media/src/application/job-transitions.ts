import { AppError } from "@study/platform/errors";
import type { ImportJobRepository, JobTransition, JobWithNote } from "./ports/import-job-repository.port";

/** What a use case that moves a job on reads and writes of the repository. */
export type JobTransitionStore = Pick<ImportJobRepository, "findWithNote" | "saveTransition">;

/** Attempts of a compare-and-set write before giving up (only reached under heavy contention on one job). */
export const MAX_TRANSITION_ATTEMPTS = 5;

/**
 * Applies a change to a job with optimistic concurrency: reads the job and its note, lets `decide` compute the
 * transition from that state (domain rules throw for refused transitions), and writes it only if nobody
 * changed the job meanwhile; otherwise reads again and decides again. `decide` returning null means there is
 * nothing to write (e.g. a late progress report).
 */
export async function transitionJob(
  jobs: Pick<ImportJobRepository, "saveTransition">,
  load: () => Promise<JobWithNote | null>,
  decide: (current: JobWithNote) => JobTransition | null,
): Promise<JobWithNote> {
  for (let attempt = 1; attempt <= MAX_TRANSITION_ATTEMPTS; attempt += 1) {
    const current = await load();
    if (!current) throw AppError.notFound("Job");
    const transition = decide(current);
    if (!transition) return current;
    if (await jobs.saveTransition(transition, current.job.version)) return { job: transition.job, note: transition.note ?? current.note };
  }
  throw new AppError("unavailable", "CONCURRENT_UPDATE", "The job is being changed by someone else; try again");
}
