import type { ErrorRequestHandler, RequestHandler } from "express";
import { AppError, databaseUnavailable, isAppError, isDatabaseUnavailable, type Logger } from "@study/platform";
import { errorBody, retryAfterSeconds } from "./envelope";

/** Unknown routes answer 404 in the envelope. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError("not_found", "NOT_FOUND", `Route ${req.method} ${req.path} not found`));
};

/**
 * Translates failures of the HTTP layer into AppErrors: body-parser's (too large, malformed JSON, a body that is
 * not compressed the way its Content-Encoding says) and the router's (a path parameter that is not valid
 * percent-encoding: a malformed request, hence 400 rather than 404, answered before authentication because
 * the router decodes the path before any handler runs).
 */
function fromHttpError(error: { type?: string; status?: number; name?: string; code?: unknown }, contentEncoding?: string): AppError | undefined {
  if (error.name === "URIError" && error.status === 400) {
    return AppError.validation("Malformed URL path", [{ field: "path", message: "is not valid percent-encoding" }]);
  }
  if (error.status === 400 && error.type === undefined && typeof error.code === "string" && contentEncoding) {
    return AppError.validation("Malformed request body", [{ field: "body", message: `is not valid ${contentEncoding} data` }]);
  }
  if (error.type === "entity.too.large") return new AppError("too_large", "PAYLOAD_TOO_LARGE", "Request body is too large");
  if (error.type === "entity.parse.failed") return AppError.validation("Malformed JSON body", [{ field: "body", message: "is not valid JSON" }]);
  if (error.type === "encoding.unsupported" || error.type === "charset.unsupported") {
    return AppError.validation("Unsupported body encoding");
  }
  return undefined;
}

/** The single place where errors become HTTP answers. Internal details go to the log, never to the client. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = isAppError(error)
      ? error
      : (fromHttpError(error as object, req.header("content-encoding")) ??
        // The gateway's own database (sessions, sign-up) going away is an outage, not a bug: 503 like a service's.
        (isDatabaseUnavailable(error) ? databaseUnavailable(error) : AppError.internal()));
    if (appError.kind === "internal" || appError.kind === "unavailable" || appError.kind === "timeout") {
      logger.error({ err: error, method: req.method, path: req.path, requestId: res.getHeader("x-request-id") }, "request failed");
    }
    const { status, body } = errorBody(appError);
    if (res.headersSent) return;
    const retryAfter = retryAfterSeconds(appError);
    if (retryAfter !== undefined) res.setHeader("retry-after", String(retryAfter));
    res.status(status).json(body);
  };
}
