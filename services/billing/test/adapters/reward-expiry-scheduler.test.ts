import { createLogger } from "@study/platform";
import { eventually } from "@study/testkit";
import { scheduleRewardExpiry } from "../../src/adapters/scheduler/reward-expiry-scheduler";
import type { ExpireRewards } from "../../src/application/expire-rewards";

/** The reward expiry runs on its cron schedule (as billing's service composes it). */
describe("reward expiry schedule", () => {
  it("runs the expiry on its schedule, and again after a failed run", async () => {
    let runs = 0;
    const expireRewards: Pick<ExpireRewards, "execute"> = {
      execute: async () => {
        runs += 1;
        if (runs === 1) throw new Error("database away");
        return 2;
      },
    };
    // Every second (croner's six-field pattern): the first run fails, the next one still comes.
    const scheduled = scheduleRewardExpiry("* * * * * *", expireRewards, createLogger("test", "silent"));
    try {
      await eventually(async () => (runs >= 2 ? true : undefined), 10_000, 50);
    } finally {
      await scheduled.stop();
    }
    expect(runs).toBeGreaterThanOrEqual(2);
  });
});
