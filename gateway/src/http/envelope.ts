import type { Response } from "express";
import { AppError, HTTP_STATUS_BY_KIND, type FieldViolation } from "@study/platform";

/** The spec's success envelope. */
export function sendData(res: Response, status: number, data: unknown, message: string): void {
  res.status(status).json({ success: true, data, message });
}

/** A success message with the service's note on what it could not do in full ("…: 9 of the 12 questions asked for: …"). */
export function withShortfall(message: string, shortfall: string | undefined): string {
  return shortfall ? `${message}, ${shortfall}` : message;
}

export function sendMessage(res: Response, message: string, status = 200): void {
  res.status(status).json({ success: true, message });
}

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  details?: FieldViolation[];
  action?: string;
}

/** Refusals of the HTTP layer itself: they never cross gRPC, so the error kinds have no status of their own. */
const HTTP_ONLY_STATUS: Record<string, number> = { UNSUPPORTED_MEDIA_TYPE: 415 };

/**
 * The spec's error envelope for an AppError. Internal errors never reveal their message; they keep their code,
 * which is INTERNAL_ERROR unless a service chose one that names what failed (the spec's SEARCH_FAILED, …): an
 * unexpected error is always turned into INTERNAL_ERROR where it is caught (errorHandler, gRPC's toServiceError).
 */
export function errorBody(error: AppError): { status: number; body: ErrorBody } {
  const status = (error.kind === "validation" && HTTP_ONLY_STATUS[error.code]) || HTTP_STATUS_BY_KIND[error.kind];
  const body: ErrorBody = {
    success: false,
    error: error.kind === "internal" ? "An unexpected error occurred" : error.message,
    code: error.code,
  };
  if (error.details.length > 0) body.details = error.details;
  if (error.action) body.action = error.action;
  return { status, body };
}

/**
 * The seconds a rate-limited caller should wait, when the service said (a `retryAfterSeconds` detail, as chat's
 * hourly question limit gives): the Retry-After header of a 429.
 */
export function retryAfterSeconds(error: AppError): number | undefined {
  if (error.kind !== "rate_limited") return undefined;
  const seconds = Number(error.details.find((detail) => detail.field === "retryAfterSeconds")?.message);
  return Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}
