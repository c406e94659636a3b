import { AppError } from "@study/platform/errors";
import { GoogleCalendarError } from "../ports/google-calendar.port";

/**
 * The spec's calendar error codes for a Google failure. Google refusing the credentials is a 400 with
 * RELINK_GOOGLE_ACCOUNT, never a 401: to the app a 401 means that the study session itself ended.
 */
export function googleFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  // Our own failure (the database, a bug) during a sync: 500, the cause only in the log.
  if (!(error instanceof GoogleCalendarError)) {
    return new AppError("internal", "GOOGLE_CALENDAR_SYNC_ERROR", "Google Calendar sync failed", { cause: error });
  }
  switch (error.failure) {
    case "auth":
      return new AppError(
        "precondition",
        "GOOGLE_CALENDAR_AUTH_ERROR",
        "Google Calendar authentication failed or expired: link your Google account again",
        {
          action: "RELINK_GOOGLE_ACCOUNT",
          cause: error,
        },
      );
    case "permission":
      return new AppError(
        "forbidden",
        "GOOGLE_CALENDAR_PERMISSION_ERROR",
        "Google Calendar access was not granted: check the permissions given to Study",
        {
          action: "CHECK_GOOGLE_PERMISSIONS",
          cause: error,
        },
      );
    case "rate_limit":
      return new AppError("rate_limited", "GOOGLE_CALENDAR_RATE_LIMIT", "Google Calendar is limiting requests: try again in a few minutes", {
        action: "RETRY_LATER",
        cause: error,
      });
    default:
      // Google failed (5xx, no answer, an answer we cannot use): 502, not retried by the gateway's client.
      return new AppError("upstream", "GOOGLE_CALENDAR_SYNC_ERROR", `Google Calendar sync failed: ${error.message}`, { cause: error });
  }
}

export const googleNotLinked = (): AppError =>
  new AppError("precondition", "GOOGLE_CALENDAR_NOT_LINKED", "No Google account is linked: link one to sync your Google Calendar", {
    action: "LINK_GOOGLE_ACCOUNT",
  });
