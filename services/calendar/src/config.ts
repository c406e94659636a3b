import { port } from "@study/platform";
import { serviceConfigSchema } from "@study/runtime";
import { z } from "zod";

/** Settings of the calendar service. */
export const calendarConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: port(50056),
  /** The courses service: an event's course is checked there (CheckCourseOwnership). */
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required"),
});
export type CalendarConfig = z.infer<typeof calendarConfigSchema>;
