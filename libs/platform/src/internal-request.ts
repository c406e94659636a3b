import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Requests the gateway forwards to a service over plain HTTP (streamed uploads) carry the authenticated user
 * in headers the service only believes when signed: HMAC-SHA256 with the shared INTERNAL_UPLOAD_SECRET over
 * user id, timestamp, method and path. The timestamp bounds replay to `maxSkewMs`; a client cannot forge the
 * headers without the secret (the gateway overwrites any it sends).
 */
export const INTERNAL_USER_HEADER = "x-study-user-id";
export const INTERNAL_TIMESTAMP_HEADER = "x-study-timestamp";
export const INTERNAL_SIGNATURE_HEADER = "x-study-signature";

export interface InternalRequestClaims {
  userId: string;
  method: string;
  /** Path and query as the service receives them. */
  path: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

export function signInternalRequest(secret: string, claims: InternalRequestClaims): string {
  return createHmac("sha256", secret).update(`${claims.userId}\n${claims.timestamp}\n${claims.method.toUpperCase()}\n${claims.path}`).digest("hex");
}

/** Headers to add to a forwarded request. */
export function internalRequestHeaders(secret: string, claims: Omit<InternalRequestClaims, "timestamp">, now = Date.now()): Record<string, string> {
  return {
    [INTERNAL_USER_HEADER]: claims.userId,
    [INTERNAL_TIMESTAMP_HEADER]: String(now),
    [INTERNAL_SIGNATURE_HEADER]: signInternalRequest(secret, { ...claims, timestamp: now }),
  };
}

/** The signed user id, or null when the headers are missing, stale (beyond `maxSkewMs`) or not signed with `secret`. */
export function verifyInternalRequest(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  request: { method: string; path: string },
  options: { now?: number; maxSkewMs?: number } = {},
): string | null {
  const userId = headers[INTERNAL_USER_HEADER];
  const timestampText = headers[INTERNAL_TIMESTAMP_HEADER];
  const signature = headers[INTERNAL_SIGNATURE_HEADER];
  if (typeof userId !== "string" || typeof timestampText !== "string" || typeof signature !== "string" || !userId) return null;
  const timestamp = Number(timestampText);
  if (!Number.isSafeInteger(timestamp) || Math.abs((options.now ?? Date.now()) - timestamp) > (options.maxSkewMs ?? 60_000)) return null;
  const expected = Buffer.from(signInternalRequest(secret, { userId, timestamp, method: request.method, path: request.path }), "hex");
  const given = Buffer.from(signature, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) ? userId : null;
}
