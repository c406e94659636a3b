import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

/** Echoes a sane incoming X-Request-Id or assigns one, so a client report can be matched to the logs. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.header("x-request-id");
  res.setHeader("x-request-id", incoming && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID());
  next();
};
