import type { ErrorRequestHandler, RequestHandler } from "express";
import { AppError, isAppError, type Logger } from "@study/platform";
import { errorBody } from "./envelope";

/** Unknown routes answer 404 in the envelope. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError("not_found", "NOT_FOUND", `Route ${req.method} ${req.path} not found`));
};

/** Translates body-parser failures (too large, malformed JSON) into AppErrors. */
function fromHttpError(error: { type?: string; status?: number }): AppError | undefined {
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
    const appError = isAppError(error) ? error : (fromHttpError(error as object) ?? AppError.internal());
    if (appError.kind === "internal" || appError.kind === "unavailable" || appError.kind === "timeout") {
      logger.error({ err: error, method: req.method, path: req.path, requestId: res.getHeader("x-request-id") }, "request failed");
    }
    const { status, body } = errorBody(appError);
    if (res.headersSent) return;
    res.status(status).json(body);
  };
}
