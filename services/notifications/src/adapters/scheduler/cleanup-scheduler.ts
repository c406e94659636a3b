import type { Logger } from "@study/platform";
import { Cron } from "croner";
import type { CleanupReadNotifications } from "../../application/cleanup-read-notifications";

export interface ScheduledCleanup {
  /** Stops scheduling and waits for a run in progress, so the database is not closed under it. */
  stop(): Promise<void>;
}

/**
 * Runs the cleanup on a cron schedule. Every replica runs it; the deletes are idempotent, so overlapping
 * runs across replicas only repeat work. Within one process a run never overlaps the previous one.
 */
export function scheduleCleanup(pattern: string, cleanup: CleanupReadNotifications, logger: Logger): ScheduledCleanup {
  let running: Promise<void> | undefined;
  const run = async () => {
    try {
      const deleted = await cleanup.execute();
      logger.info({ deleted }, "read notifications past retention deleted");
    } catch (error) {
      // The next scheduled run tries again; nothing is lost by skipping one.
      logger.error({ err: error }, "notification cleanup failed");
    }
  };
  const job = new Cron(pattern, { protect: true }, () => {
    running = run().finally(() => {
      running = undefined;
    });
    return running;
  });
  return {
    async stop() {
      job.stop();
      await running;
    },
  };
}
