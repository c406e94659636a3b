import type { Logger } from "@study/platform";
import { Cron } from "croner";
import type { ExpireRewards } from "../../application/expire-rewards";

export interface ScheduledExpiry {
  /** Stops scheduling and waits for a run in progress, so the database is not closed under it. */
  stop(): Promise<void>;
}

/**
 * Runs the reward expiry on a cron schedule (as notifications schedules its cleanup). Every replica runs it; the
 * update is idempotent and skips rows another replica holds. Within one process a run never overlaps the previous.
 */
export function scheduleRewardExpiry(pattern: string, expireRewards: Pick<ExpireRewards, "execute">, logger: Logger): ScheduledExpiry {
  let running: Promise<void> | undefined;
  const run = async () => {
    try {
      const expired = await expireRewards.execute();
      if (expired > 0) logger.info({ expired }, "referral rewards past their validity expired");
    } catch (error) {
      // The next run tries again: an unexpired reward past its date is refused (NOT_PENDING) meanwhile anyway.
      logger.error({ err: error }, "referral reward expiry failed");
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
