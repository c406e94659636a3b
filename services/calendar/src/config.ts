import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { z } from "zod";

/** Settings of the calendar service. */
export const calendarConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: grpcPort(50056),
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required").describe("The courses service (`host:port`): an event's course is checked there."),
  IDENTITY_GRPC_ADDRESS: z
    .string()
    .min(1, "is required")
    .describe(
      "The gateway's IdentityService (`host:port`; compose and k8s: `gateway:50050`): the users' Google access tokens for the sync and the push.",
    ),
  GOOGLE_CALENDAR_API_URL: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://www.googleapis.com/" })
    .default("https://www.googleapis.com/")
    .describe("Root of Google's APIs (the Calendar v3 API is under it); a local stand-in's URL in tests."),
  GOOGLE_SYNC_PAST_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(365)
    .default(30)
    .describe("A full Google sync imports events from this many days before now."),
  GOOGLE_SYNC_FUTURE_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(730)
    .default(180)
    .describe("A full Google sync imports events up to this many days after now (recurring events expanded into their instances up to there)."),
  GOOGLE_CALENDAR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000).describe("How long one request to Google may take (ms)."),
  CALENDAR_REMINDER_POLL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(15_000)
    .describe("How often the reminder scheduler looks for due reminders (ms; 100 ms to 1 h)."),
});
export type CalendarConfig = z.infer<typeof calendarConfigSchema>;
