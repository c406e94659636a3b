import { AppError } from "@study/platform";
import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import { errorBody } from "./envelope";

/** The handlers credentialRateLimit made: a route that runs one answers 429, which its documentation must say. */
const RATE_LIMITERS = new WeakSet<RequestHandler>();

export const isRateLimiter = (handler: RequestHandler) => RATE_LIMITERS.has(handler);

/**
 * Per-client-address limit for endpoints that take credentials. Counts live in this process's memory: with
 * several gateway replicas each enforces its own share (a shared store would make the limit global).
 */
export function credentialRateLimit(name: string, limitPerMinute: number): RequestHandler {
  const limiter = rateLimit({
    windowMs: 60_000,
    limit: limitPerMinute,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    identifier: name,
    handler: (_req, res) => {
      const { status, body } = errorBody(
        new AppError("rate_limited", "RATE_LIMITED", "Too many attempts. Please wait a minute and try again.", { action: "RETRY_LATER" }),
      );
      res.status(status).json(body);
    },
  });
  RATE_LIMITERS.add(limiter);
  return limiter;
}
