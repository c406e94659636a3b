import type { Logger } from "@study/platform";
import type { SendDueReminders } from "../../application/send-due-reminders";

export interface ScheduledReminders {
  /** Stops polling and waits for a pass in progress, so the database is not closed under it. */
  stop(): Promise<void>;
}

/**
 * Runs a reminder pass every `intervalMs` (the next one is timed from the end of the previous, so passes never
 * overlap in one process). Every replica runs it; the claim's row locks keep each reminder to one replica.
 */
export function scheduleReminders(intervalMs: number, sendDueReminders: SendDueReminders, logger: Logger): ScheduledReminders {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const pass = async () => {
    try {
      const sent = await sendDueReminders.execute();
      if (sent > 0) logger.info({ sent }, "calendar reminders sent");
    } catch (error) {
      // The next pass claims the same events again: nothing was marked reminded in the failed transaction.
      logger.error({ err: error }, "calendar reminder pass failed");
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = undefined;
        schedule();
      });
    }, intervalMs);
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
