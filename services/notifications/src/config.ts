import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { Cron } from "croner";
import { z } from "zod";
import { DEFAULT_RETENTION_DAYS } from "./domain/notification";

/** A pattern croner accepts; checked at start-up so a typo fails fast instead of never running. */
function isCronPattern(pattern: string): boolean {
  try {
    new Cron(pattern);
    return true;
  } catch {
    return false;
  }
}

export const notificationsConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: grpcPort(50052),
  NOTIFICATION_CLEANUP_CRON: z
    .string()
    .default("17 3 * * *")
    .refine(isCronPattern, "must be a cron pattern, e.g. 17 3 * * *")
    .describe("When the read-notification cleanup runs (cron syntax, 5 fields or 6 with seconds; server time zone)."),
  NOTIFICATION_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_RETENTION_DAYS)
    .describe("Read notifications older than this many days are deleted by the cleanup."),
});
export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;
