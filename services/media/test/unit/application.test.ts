import { planNoteDeletion } from "../../src/application/delete-note";
import { jobStats, successRate } from "../../src/application/get-job-stats";
import { MAX_TRANSITION_ATTEMPTS, transitionJob } from "../../src/application/job-transitions";
import type { ImportJobRepository, JobTransition, JobWithNote } from "../../src/application/ports/import-job-repository.port";
import { reportProgress } from "../../src/domain/import-job";
import { aJob, aNote, later } from "./fixtures";
import { refusal } from "@study/testkit/refusal";

/** A repository whose job another writer changes `conflicts` times before our write gets through. */
function contendedRepository(initial: JobWithNote, conflicts: number) {
  let current = initial;
  let remaining = conflicts;
  const saved: JobTransition[] = [];
  const repository: Pick<ImportJobRepository, "saveTransition"> = {
    async saveTransition(transition: JobTransition, expectedVersion: number) {
      if (remaining > 0) {
        remaining -= 1;
        // Someone else moved the job on meanwhile.
        current = { ...current, job: { ...current.job, version: current.job.version + 1, progress: current.job.progress + 1 } };
        return false;
      }
      if (expectedVersion !== current.job.version) return false;
      saved.push(transition);
      current = { job: transition.job, note: transition.note ?? current.note };
      return true;
    },
  };
  return { repository, load: async () => current, saved };
}

describe("transitionJob (optimistic concurrency)", () => {
  const running = { job: aJob("IN_PROGRESS", { progress: 30, stage: "TRANSCRIPTION", attempts: 1 }), note: aNote("PROCESSING") };
  const toFifty = ({ job }: JobWithNote): JobTransition | null => {
    const next = reportProgress(job, "TRANSCRIPTION", 50, later);
    return next === job ? null : { job: next, note: null, events: [] };
  };

  it("decides again on the fresh state when the job changed between read and write", async () => {
    const { repository, load, saved } = contendedRepository(running, 2);
    const result = await transitionJob(repository, load, toFifty);
    expect(result.job).toMatchObject({ progress: 50, version: running.job.version + 3 });
    expect(saved).toHaveLength(1);
  });

  it("writes nothing when the decision is that nothing changes", async () => {
    const { repository, load, saved } = contendedRepository({ ...running, job: { ...running.job, progress: 60 } }, 0);
    expect((await transitionJob(repository, load, toFifty)).job.progress).toBe(60);
    expect(saved).toEqual([]);
  });

  it("gives up after repeated conflicts, and answers NOT_FOUND for a job that is gone", async () => {
    const { repository, load } = contendedRepository(running, MAX_TRANSITION_ATTEMPTS);
    expect(await refusal(() => transitionJob(repository, load, toFifty))).toMatchObject({ kind: "unavailable", code: "CONCURRENT_UPDATE" });
    expect(await refusal(() => transitionJob(repository, async () => null, toFifty))).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
  });
});

describe("job statistics", () => {
  it("counts by status, rates the finished imports and describes the queue", () => {
    const stats = jobStats({ PENDING: 2, IN_PROGRESS: 1, COMPLETED: 5, FAILED: 1, CANCELLED: 3 }, [aJob("PENDING")]);
    expect(stats).toEqual({
      total: 12,
      byStatus: { pending: 2, inProgress: 1, completed: 5, failed: 1, cancelled: 3 },
      successRate: 83.3,
      recentJobs: [aJob("PENDING")],
      queueStats: { waiting: 2, active: 1, completed: 5, failed: 1, total: 9 },
    });
    expect(successRate(0, 0)).toBe(0);
    expect(successRate(2, 0)).toBe(100);
    expect(successRate(1, 2)).toBe(33.3);
  });
});

describe("deleting a note", () => {
  it("cancels its active imports and announces the storage keys to clean up", () => {
    const note = aNote("PROCESSING", { audioStorageKey: "uploads/a.mp3" });
    const plan = planNoteDeletion(later)({ note, storageKeys: ["uploads/a.mp3", "attachments/b.png"], activeJobs: [aJob("IN_PROGRESS")] });
    expect(plan.jobs).toEqual([expect.objectContaining({ status: "CANCELLED", errorMessage: "Cancelled: the note was deleted", version: 4 })]);
    expect(plan.events).toHaveLength(1);
    expect(plan.events[0]).toMatchObject({
      type: "media.note.deleted.v1",
      source: "media",
      userId: "alice",
      payload: {
        $case: "noteDeleted",
        value: { noteId: note.id, courseId: note.courseId, title: note.title, storageKeys: ["uploads/a.mp3", "attachments/b.png"] },
      },
    });
  });
});
