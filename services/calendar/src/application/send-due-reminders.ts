import { systemClock, type Clock } from "@study/platform/clock";
import { DEFAULT_REMINDER_GRACE_MS } from "../domain/reminder";
import { calendarReminderDue } from "./calendar-events";
import type { ReminderRepository } from "./ports/reminder-repository.port";

export interface ReminderSettings {
  graceMs: number;
  /** Events claimed per transaction (a pass claims batches until one comes back short). */
  batchSize: number;
}

export const DEFAULT_REMINDER_SETTINGS: ReminderSettings = { graceMs: DEFAULT_REMINDER_GRACE_MS, batchSize: 100 };

/** One pass of the reminder scheduler: claims every due reminder and announces it (calendar.event.reminder_due.v1). */
export class SendDueReminders {
  constructor(
    private readonly reminders: ReminderRepository,
    private readonly clock: Clock = systemClock,
    private readonly settings: ReminderSettings = DEFAULT_REMINDER_SETTINGS,
  ) {}

  /** Returns how many reminders this pass sent. */
  async execute(): Promise<number> {
    let sent = 0;
    for (;;) {
      const claim = { now: this.clock.now(), graceMs: this.settings.graceMs, limit: this.settings.batchSize };
      const claimed = await this.reminders.claimDue(claim, (event) => [calendarReminderDue(event)]);
      sent += claimed.length;
      if (claimed.length < this.settings.batchSize) return sent;
    }
  }
}
