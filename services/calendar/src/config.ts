import { port } from "@study/platform";
import { serviceConfigSchema } from "@study/runtime";
import { z } from "zod";

/** Settings of the calendar service. */
export const calendarConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: port(50056),
  /** The courses service: an event's course is checked there (CheckCourseOwnership). */
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required"),
  /** How often the reminder scheduler looks for due reminders (ms; 100 ms to 1 h). */
  CALENDAR_REMINDER_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
});
export type CalendarConfig = z.infer<typeof calendarConfigSchema>;
