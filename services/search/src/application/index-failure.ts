import type { Logger } from "@study/platform";
import { AppError } from "@study/platform/errors";

/**
 * The error a caller sees when the index or the database fails (SEARCH_FAILED, FILTERS_FAILED,
 * SUGGESTIONS_FAILED: kind internal, HTTP 500). The cause is logged here, with its stack; the message the
 * client receives names only what failed.
 */
export function indexFailure(logger: Logger, code: string, message: string, cause: unknown, context: Record<string, unknown>): AppError {
  logger.error({ err: cause, code, ...context }, message);
  return new AppError("internal", code, message, { cause });
}

/** Runs `work`; a failure becomes the operation's AppError (see indexFailure). */
export async function failingAs<T>(
  logger: Logger,
  code: string,
  message: string,
  context: Record<string, unknown>,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw indexFailure(logger, code, message, error, context);
  }
}
