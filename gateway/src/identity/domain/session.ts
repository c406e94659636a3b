import { AppError } from "@study/platform/errors";

export interface AuthenticatedUser {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface AuthenticatedSession {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  ipAddress?: string | null;
  userAgent?: string | null;
}

/** A signed-in caller: the user and the session their request proved. */
export interface AuthState {
  user: AuthenticatedUser;
  session: AuthenticatedSession;
}

export interface SessionTimings {
  expiresInSeconds: number;
  /** A session is renewed (its expiry pushed out) once it is older than this since its last renewal. */
  renewAfterSeconds: number;
}

/**
 * A stored session at `now`: `usable` until it is due for renewal, then `due-for-renewal`, and `expired` once
 * its expiry has passed. Its last renewal is its expiry minus the lifetime.
 */
export function sessionStanding(expiresAt: Date, timings: SessionTimings, now: Date): "usable" | "due-for-renewal" | "expired" {
  const expires = expiresAt.getTime();
  if (expires <= now.getTime()) return "expired";
  const renewedAt = expires - timings.expiresInSeconds * 1000;
  return renewedAt + timings.renewAfterSeconds * 1000 <= now.getTime() ? "due-for-renewal" : "usable";
}

export const sessionExpired = () => AppError.unauthenticated("Your session has expired. Please sign in again.", "SESSION_EXPIRED");
